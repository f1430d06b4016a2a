import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { historyFile } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { renderError } from '../../output/render-error.js';
import { renderRows, truncationNotice } from '../../output/sql-result.js';
import { renderTable } from '../../output/table.js';
import { callSql, SqlRejected } from '../shared.js';

const HISTORY_SIZE = 500;
const HELP = `Type SQL ending in ; to run it (reads only, as \`expense query\`).
  \\d             list the relations
  \\d <relation>  the columns of one relation
  \\q             quit (or Ctrl-D)`;

async function loadHistory(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

async function remember(file: string, entry: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await appendFile(file, `${entry.replace(/\n/g, ' ')}\n`, { mode: 0o600 });
  } catch {
    // A history that cannot be written is not worth stopping the session for.
  }
}

async function workspaceName(ctx: Context): Promise<string> {
  try {
    const id = await ctx.workspaceId();
    const list = (await (await ctx.api()).workspaces()).data.workspaces;
    return list.find((w) => (id ? w.workspaceId === id : w.selected))?.name ?? 'expense';
  } catch {
    return 'expense';
  }
}

async function describe(ctx: Context, name: string | undefined): Promise<void> {
  const { relations } = (await (await ctx.api()).schema()).data;
  const table = { maxWidth: ctx.tableWidth, colours: ctx.out };
  if (!name) {
    ctx.print(
      renderTable(
        [{ header: 'RELATION' }, { header: 'KIND' }, { header: 'OPERATIONS' }],
        relations.map((r) => [r.name, r.kind, r.operations.join(', ')]),
        table,
      ),
    );
    return;
  }
  const relation = relations.find((r) => r.name.toLowerCase() === name.toLowerCase());
  if (!relation) {
    ctx.note(`There is no relation "${name}". \\d lists them.`);
    return;
  }
  ctx.print(
    renderTable(
      [{ header: 'COLUMN' }, { header: 'TYPE' }, { header: 'NULLABLE' }],
      relation.columns.map((c) => [c.name, c.type, c.nullable ? 'yes' : 'no']),
      table,
    ),
  );
}

async function runQuery(ctx: Context, sql: string): Promise<void> {
  const result = await callSql(ctx, '/sql/query', sql);
  const statement = result.data.statements[0];
  if (!statement) return;
  ctx.io.stdout.write(renderRows(statement, 'table', { maxWidth: ctx.tableWidth, colours: ctx.out }));
  const notice = truncationNotice(statement, result.data.limits.maxReturnedRows);
  ctx.note(notice ? ctx.err.yellow(notice) : ctx.err.dim(`(${statement.returnedRowCount} rows)`));
}

/** `expense query` without SQL on a terminal: a psql-like prompt with history and \d help. */
export async function runRepl(ctx: Context): Promise<void> {
  const file = historyFile(ctx.io.env);
  const name = await workspaceName(ctx);
  ctx.note(`${HELP}\n`);
  const rl = createInterface({
    input: ctx.io.stdin,
    output: ctx.io.stderr,
    terminal: true,
    history: await loadHistory(file),
    historySize: HISTORY_SIZE,
  });
  let buffer = '';
  const prompt = () => {
    rl.setPrompt(buffer ? `${name}-> ` : `${name}=> `);
    rl.prompt();
  };
  rl.on('SIGINT', () => {
    buffer = '';
    ctx.io.stderr.write('\n');
    prompt();
  });
  prompt();
  for await (const line of rl) {
    const trimmed = line.trim();
    if (!buffer && trimmed.startsWith('\\')) {
      await remember(file, trimmed);
      const [command, arg] = trimmed.split(/\s+/, 2);
      if (command === '\\q') break;
      try {
        if (command === '\\d') await describe(ctx, arg);
        else ctx.note(`Unknown command ${command}.\n${HELP}`);
      } catch (error) {
        ctx.io.stderr.write(renderError(error, ctx.err));
      }
      prompt();
      continue;
    }
    buffer = buffer ? `${buffer}\n${line}` : line;
    if (trimmed.endsWith(';')) {
      const sql = buffer;
      buffer = '';
      await remember(file, sql);
      try {
        await runQuery(ctx, sql);
      } catch (error) {
        ctx.io.stderr.write(
          renderError(error, ctx.err, error instanceof SqlRejected ? error.sql : undefined),
        );
      }
    } else if (!buffer.trim()) buffer = '';
    prompt();
  }
  rl.close();
}
