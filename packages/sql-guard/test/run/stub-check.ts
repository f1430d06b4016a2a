/**
 * A deliberately trivial `check` for unit tests of run's internals: it splits statements with the real
 * parser and accepts everything. The real guard tests go through createGuard().
 */
import { parseSync } from 'libpg-query';
import type { CheckedStatement, CheckResult, Mode } from '../../src/types.js';

export function stubCheck(sql: string, _options: { mode: Mode }): CheckResult {
  const tree = parseSync(sql) as {
    stmts: Array<{ stmt: Record<string, unknown>; stmt_location?: number; stmt_len?: number }>;
  };
  const statements = tree.stmts.map((entry): CheckedStatement => {
    const offset = entry.stmt_location ?? 0;
    const length = entry.stmt_len || sql.length - offset;
    const text = sql.slice(offset, offset + length);
    const node = Object.keys(entry.stmt)[0] ?? '';
    const kind =
      ({ InsertStmt: 'insert', UpdateStmt: 'update', DeleteStmt: 'delete' } as const)[node] ?? 'select';
    const readOnly = !/"(InsertStmt|UpdateStmt|DeleteStmt)"/.test(JSON.stringify(entry.stmt));
    return {
      sql: text.replace(/;\s*$/, ''),
      kind,
      readOnly,
      relations: [],
      location: { offset, length: text.replace(/;\s*$/, '').length },
    };
  });
  return { ok: true, statements };
}
