import type { CheckResult, RunResult, SqlSession } from '@expense/sql-guard';
import type { SqlWarning } from '@expense/wire';

/**
 * A dry run's warning when an UPDATE or DELETE would change every row of a relation in the workspace, or more than
 * half of them: `DELETE FROM ledger_entries` without WHERE passes its dry run, and an agent that reads only "n rows
 * would be affected" commits an emptied workspace. The rows are counted in the dry run's own transaction, after
 * its statements, under row-level security (this workspace's rows only); the count before the request is that
 * plus what it deleted, less what it inserted. workspace_settings holds one row per workspace, so every UPDATE of
 * it changes "every row" by design and is left out.
 */
const LEFT_OUT = new Set(['workspace_settings']);

interface Write {
  statementIndex: number;
  relation: string;
  command: 'INSERT' | 'UPDATE' | 'DELETE';
  rows: number;
}

/** The statements that write exactly one relation, with their row counts (a multi-relation CTE is left out). */
function writesOf(checked: CheckResult, result: RunResult): Write[] {
  if (!checked.ok) return [];
  const out: Write[] = [];
  for (const s of result.statements) {
    if (s.command === 'SELECT') continue;
    const written = checked.statements[s.index]?.relations.filter((r) => r.access !== 'read') ?? [];
    const names = [...new Set(written.map((r) => r.name))];
    if (names.length === 1)
      out.push({
        statementIndex: s.index,
        relation: names[0] as string,
        command: s.command,
        rows: s.rowCount,
      });
  }
  return out;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The warnings of a dry run (none when no UPDATE or DELETE changed a row); one round trip when there are any. */
export async function wideWrites(
  session: SqlSession,
  checked: CheckResult,
  result: RunResult,
): Promise<SqlWarning[]> {
  const writes = writesOf(checked, result);
  const wide = writes.filter((w) => w.command !== 'INSERT' && w.rows > 0 && !LEFT_OUT.has(w.relation));
  if (wide.length === 0) return [];
  const relations = [...new Set(wide.map((w) => w.relation))];
  const counts = await session.query(
    `SELECT ${relations.map((r, i) => `(SELECT count(*) FROM ${quoted(r)}) AS c${i}`).join(', ')}`,
  );
  const before = new Map<string, number>();
  relations.forEach((relation, i) => {
    const net = writes
      .filter((w) => w.relation === relation)
      .reduce((n, w) => n + (w.command === 'DELETE' ? w.rows : w.command === 'INSERT' ? -w.rows : 0), 0);
    before.set(relation, Number(counts.rows[0]?.[`c${i}`] ?? 0) + net);
  });
  const warnings: SqlWarning[] = [];
  for (const w of wide) {
    const relationRows = before.get(w.relation) ?? 0;
    if (relationRows <= 0 || w.rows * 2 <= relationRows) continue;
    warnings.push({
      code: w.rows >= relationRows ? 'every_row' : 'most_rows',
      statementIndex: w.statementIndex,
      relation: w.relation,
      command: w.command as 'UPDATE' | 'DELETE',
      affectedRows: w.rows,
      relationRows,
    });
  }
  return warnings;
}

/** A warning as the dry run's first instruction, which the MCP tools relay as a note to tell the user. */
export function wideWriteInstruction(w: SqlWarning): string {
  const verb = w.command === 'DELETE' ? 'delete' : 'update';
  const what =
    w.code === 'every_row'
      ? `every row of ${w.relation} in this workspace (${w.affectedRows} of ${w.relationRows})${w.command === 'DELETE' ? ': it empties the relation' : ''}`
      : `${w.affectedRows} of the ${w.relationRows} rows of ${w.relation} in this workspace, more than half`;
  return `Warning: statement ${w.statementIndex + 1} would ${verb} ${what}. Tell the user and commit only if they mean it; otherwise add a WHERE that selects only the rows meant.`;
}
