/**
 * The SQL endpoints' dialect: the guard's expense dialect, with refusals that name this server's routes, and the
 * check at start that the database's user relations are exactly the dialect's (names, columns in table order, the
 * SQL role's operations), and that each workspace table keeps its tenants apart (row-level security on it that
 * applies to the SQL role, views that read as their reader, keys that carry workspace_id): a dialect column the
 * table lacks would let `t.col` reach a function `col(t)`, and `*` expands in table order.
 */
import { type Dialect, expenseDialect, verifyDialect } from '@expense/sql-guard';
import { DIALECT_WORDS } from '@expense/wire';
import type { Queryable } from '../../platform/storage/database.js';
import { SQL_ROLE } from '../../platform/storage/names.js';

export const serverDialect: Dialect = {
  ...expenseDialect,
  // The catalogue owns these words; a refusal made of them names its variant, whose texts word it for every
  // audience (GUARD_ERRORS).
  hints: DIALECT_WORDS,
};

/** The database differs from the SQL dialect: the server does not start. */
export class DialectDriftError extends Error {
  override readonly name = 'DialectDriftError';
}

/** Refuses to go on (DialectDriftError naming every difference) unless the database matches the dialect. */
export async function assertDatabaseMatchesDialect(db: Queryable): Promise<void> {
  // With the tenant column: every workspace table the SQL role reaches keeps its row-level security, and applies to it.
  const differences = await verifyDialect(db, serverDialect, {
    role: SQL_ROLE,
    tenantColumn: 'workspace_id',
  });
  if (differences.length === 0) return;
  throw new DialectDriftError(
    `The database's user relations differ from the SQL dialect, so the server does not start: ${differences
      .map((d) => d.message)
      .join(
        ' ',
      )} Undo the manual change to the schema (the migrations create exactly the dialect's relations), or run a server version whose dialect matches it.`,
  );
}
