import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { quoteLiteral } from '../../sql/literal.js';
import { approve, callSql, workspaceLabel } from '../shared.js';

/** Rows one request may change (the service's affected-row cap): larger renames go in batches of one group. */
const BATCH = 100;

/** The statements of a rename, each changing at most `limit` rows still spelled one of `from` (none left: 0 rows). */
export function renameStatements(from: string[], to: string, limit = BATCH): string[] {
  const names = from.map(quoteLiteral).join(', ');
  return [
    `UPDATE ledger_entries SET category = ${quoteLiteral(to)} WHERE entry_id IN (SELECT entry_id FROM ledger_entries WHERE category IN (${names}) ORDER BY entry_id LIMIT ${limit})`,
    `UPDATE budget_lines SET category = ${quoteLiteral(to)} WHERE line_id IN (SELECT line_id FROM budget_lines WHERE category IN (${names}) ORDER BY line_id LIMIT ${limit})`,
  ];
}

/** Folding as the database does (lower()), for the spellings the workspace uses. */
const fold = (s: string) => s.toLowerCase();

export interface UsedCategory {
  category: string;
  entries: number;
  lines: number;
}

export interface RenamePlan {
  /** The spellings of <from> that change (every case of it but <to> itself). */
  from: string[];
  /** What they become: the spelling the workspace already has for <to> (a merge), else <to>. */
  to: string;
  merge: boolean;
  entries: number;
  lines: number;
}

/** The plan of a rename from the workspace's categories with their row counts (pure). */
export function planRename(source: string, target: string, used: UsedCategory[]): RenamePlan {
  const from = used.filter((u) => fold(u.category) === fold(source) && u.category !== target);
  const existing =
    fold(source) === fold(target) ? undefined : used.find((u) => fold(u.category) === fold(target));
  return {
    from: from.map((u) => u.category),
    to: existing?.category ?? target,
    merge: existing !== undefined,
    entries: from.reduce((n, u) => n + u.entries, 0),
    lines: from.reduce((n, u) => n + u.lines, 0),
  };
}

/** The workspace's categories with their counts of entries and budget lines. */
async function usedCategories(ctx: Context): Promise<UsedCategory[]> {
  const used = new Map<string, UsedCategory>();
  for (const [table, field] of [
    ['ledger_entries', 'entries'],
    ['budget_lines', 'lines'],
  ] as const) {
    const { data } = await callSql(
      ctx,
      '/sql/query',
      `SELECT category, count(*) AS n FROM ${table} WHERE category IS NOT NULL GROUP BY category ORDER BY category`,
    );
    const statement = data.statements[0];
    if (statement?.truncated)
      throw usageError(
        `The workspace has more than ${statement.returnedRowCount} categories: too many to rename from here.`,
        'Rename it with `expense exec`: UPDATE ... SET category = ... WHERE category IN (...).',
      );
    for (const row of (statement?.rows ?? []) as { category: string; n: string | number }[]) {
      const entry = used.get(row.category) ?? { category: row.category, entries: 0, lines: 0 };
      entry[field] += Number(row.n);
      used.set(row.category, entry);
    }
  }
  return [...used.values()];
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * `expense categories rename <from> <to>`: every entry and budget line of <from> (any case) gets <to>, or the
 * spelling the workspace already has for it (a merge). One change in the history: one request when it fits the
 * service's 100-row cap, else batches of one change group (one entry; `expense revert` undoes them all).
 */
export async function renameCategory(
  ctx: Context,
  options: { yes?: boolean },
  [from, to]: string[],
): Promise<void> {
  const [source, target] = [(from ?? '').trim(), (to ?? '').trim()];
  if (!source || !target) throw usageError('Give the category to rename and its new name.');
  const plan = planRename(source, target, await usedCategories(ctx));
  const total = plan.entries + plan.lines;
  if (total === 0) {
    ctx.note(`No entry or budget line has the category "${source}" in another spelling than "${target}".`);
    return;
  }
  if (!ctx.json)
    ctx.note(
      `${plan.merge ? `Merging ${quoted(plan.from)} into "${plan.to}"` : `Renaming ${quoted(plan.from)} to "${plan.to}"`}: ${plan.entries} entr${plan.entries === 1 ? 'y' : 'ies'} and ${plan.lines} budget line${plan.lines === 1 ? '' : 's'}.`,
    );
  await approve(ctx, `Rename the category on ${await workspaceLabel(ctx)}?`, options.yes);
  const statements = renameStatements(plan.from, plan.to);
  let changeId: string | undefined;
  if (total <= BATCH) {
    changeId = (await callSql(ctx, '/sql', statements.join(';\n'))).data.changeId ?? undefined;
  } else {
    const changeGroup = { id: randomUUID(), label: `rename category ${source} to ${plan.to}` };
    // Each table's rows in batches, as many as it has (no empty write: each would be a change of its own).
    const pending = [plan.entries, plan.lines];
    for (const [i, sql] of statements.entries()) {
      for (let left = pending[i] ?? 0; left > 0; ) {
        const { data } = await callSql(ctx, '/sql/execute', sql, { changeGroup });
        const changed = data.statements[0]?.rowCount ?? 0;
        if (changed === 0) break;
        left -= changed;
        changeId = data.changeId ?? changeId;
      }
    }
  }
  if (ctx.json) return ctx.printJson({ ...plan, changeId: changeId ?? null });
  ctx.note(
    `${ctx.err.green('✓')} ${plan.merge ? 'Merged' : 'Renamed'}: ${total} row(s) now in "${plan.to}". To undo it: \`expense history\`, then \`expense revert <change>\`.`,
  );
}
