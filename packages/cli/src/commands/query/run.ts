import type { StatementResult } from '@expense/wire';
import type { Context } from '../../context.js';
import { ExitCode, usageError } from '../../errors.js';
import { rowsWithNumbers } from '../../output/numbers.js';
import { renderRows, truncationNotice } from '../../output/sql-result.js';
import { callSql, sqlFrom } from '../shared.js';
import type { QueryOptions } from './options.js';

// The prompt, --all's paging and progress bar, and the pager load only where they are used.

const PAGING_REFUSALS = {
  no_order_by:
    '--all pages through the result with LIMIT and OFFSET, which is only consistent with a fixed order: end the query with ORDER BY (include a unique column, such as id, to break ties).',
  has_limit: '--all adds its own LIMIT and OFFSET: remove the LIMIT, OFFSET or FETCH from the query.',
  several_statements: '--all pages one query: give a single SELECT.',
} as const;

/** `expense query`: one read, its rows printed (or paged through with --all). */
export async function query(ctx: Context, options: QueryOptions, [arg]: string[]): Promise<void> {
  if (arg === undefined && options.file === undefined && ctx.io.stdin.isTTY && ctx.interactive) {
    return (await import('./repl.js')).runRepl(ctx);
  }
  const sql = await sqlFrom(ctx, arg, options.file);
  const problem = options.all ? (await import('../../sql/paging.js')).pagingProblem(sql) : undefined;
  if (problem) throw usageError(PAGING_REFUSALS[problem], 'Nothing was sent.');
  const result = await callSql(ctx, '/sql/query', sql);
  let statement = result.data.statements[0];
  if (options.all && statement?.truncated) statement = await fetchTheRest(ctx, sql, statement);
  if (ctx.json) {
    const raw = result.raw as Record<string, unknown>;
    const statements = (options.all && statement ? [statement] : result.data.statements).map((s) =>
      options.numbers ? { ...s, rows: rowsWithNumbers(s.rows, s.columns) } : s,
    );
    ctx.printJson({ ...raw, statements });
  } else if (statement) {
    const text = renderRows(statement, options.format, {
      maxWidth: options.expanded ? undefined : ctx.tableWidth,
      colours: ctx.out,
      header: options.header,
      crlf: options.crlf === true,
      raw: options.raw === true,
      expanded: options.expanded === true,
      numbers: options.numbers === true,
      ...(options.unaligned ? { unaligned: options.fieldSeparator } : {}),
    });
    const paged = options.pager && options.format === 'table' && ctx.io.stdout.isTTY;
    if (paged) await (await import('../../output/pager.js')).writePaged(ctx.io, text);
    else ctx.io.stdout.write(text);
    if (options.format === 'table' && ctx.io.stderr.isTTY && !statement.truncated) {
      ctx.note(
        ctx.err.dim(`(${statement.returnedRowCount} row${statement.returnedRowCount === 1 ? '' : 's'})`),
      );
    }
  }
  const notice = statement && truncationNotice(statement, result.data.limits.maxReturnedRows);
  if (notice) {
    ctx.note(ctx.err.yellow(notice));
    // A script that redirects the output must not take a part for the whole.
    if (!ctx.io.stdout.isTTY) {
      ctx.note(`Exit code ${ExitCode.truncated}: the output is incomplete; --all fetches every row.`);
      ctx.exitCode = ExitCode.truncated;
    }
  }
}

/** The remaining pages of a truncated result, each as large as the server's first page. */
async function fetchTheRest(ctx: Context, sql: string, first: StatementResult): Promise<StatementResult> {
  const [{ ProgressBar }, { pageSql }] = await Promise.all([
    import('../../output/progress.js'),
    import('../../sql/paging.js'),
  ]);
  const pageSize = Math.max(1, first.returnedRowCount);
  const rows = [...first.rows];
  const bar = new ProgressBar(ctx.io.stderr, first.totalRowCount, 'Fetching');
  bar.update(rows.length);
  try {
    while (rows.length < first.totalRowCount) {
      const page = (await callSql(ctx, '/sql/query', pageSql(sql, pageSize, rows.length))).data.statements[0];
      if (!page || page.rows.length === 0) break; // rows were deleted meanwhile
      rows.push(...page.rows);
      bar.update(Math.min(rows.length, first.totalRowCount));
    }
  } finally {
    bar.done();
  }
  return {
    ...first,
    rows,
    rowCount: rows.length,
    returnedRowCount: rows.length,
    totalRowCount: rows.length,
    truncated: false,
  };
}
