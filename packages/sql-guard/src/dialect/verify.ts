/** verifyDialect: every way a dialect differs from the database its statements run on. */
import type { Dialect, DialectDifference, Operation } from '../types.js';
import { type CatalogClient, identifier, reachableRelations, readRelations } from './catalog.js';

export interface VerifyOptions {
  /**
   * Whose privileges to compare: without it, the client's current_user must hold every operation of the dialect;
   * with it, that role must hold them and nothing more (no other relation of the dialect's schemas, no other
   * operation on the dialect's relations).
   */
  role?: string;
}

const OPERATIONS: readonly Operation[] = ['select', 'insert', 'update', 'delete'];

/**
 * Compares the dialect with the catalog (names resolve through the client's search_path, as the statements'
 * will): each relation exists, its columns are exactly the table's, in the table's order, and the role holds the
 * dialect's operations. Returns [] when they agree.
 */
export async function verifyDialect(
  client: CatalogClient,
  dialect: Dialect,
  options: VerifyOptions = {},
): Promise<DialectDifference[]> {
  const names = Object.keys(dialect.relations);
  const read = await readRelations(
    client,
    names.map((name) => ({ name, qualified: identifier(name) })),
    options.role,
  );
  const differences: DialectDifference[] = [];
  for (const relation of read) {
    const name = relation.name;
    const listed = dialect.relations[name];
    if (!listed) continue;
    if (!relation.found) {
      differences.push({
        kind: 'missing_relation',
        relation: name,
        message: `Relation ${name} of the dialect does not exist in the database.`,
      });
      continue;
    }
    const table = relation.columns;
    for (const column of listed.columns) {
      if (!table.includes(column)) {
        differences.push({
          kind: 'missing_column',
          relation: name,
          column,
          message: `Column ${name}.${column} of the dialect is not a column of the table (${name}.${column} would read as a function call ${column}(${name})).`,
        });
      }
    }
    for (const column of table) {
      if (!listed.columns.includes(column)) {
        differences.push({
          kind: 'extra_column',
          relation: name,
          column,
          message: `Column ${name}.${column} of the table is missing from the dialect (* would expand to it).`,
        });
      }
    }
    const common = listed.columns.filter((c) => table.includes(c));
    const tableOrder = table.filter((c) => listed.columns.includes(c));
    if (common.join(',') !== tableOrder.join(',')) {
      differences.push({
        kind: 'column_order',
        relation: name,
        message: `The dialect lists the columns of ${name} as ${common.join(', ')}; the table's order is ${tableOrder.join(', ')}.`,
      });
    }
    const who = options.role ?? 'the session role';
    for (const operation of OPERATIONS) {
      const inDialect = listed.operations.includes(operation);
      const granted = relation.granted.has(operation);
      if (inDialect && !granted) {
        differences.push({
          kind: 'operation_not_granted',
          relation: name,
          operation,
          message: `The dialect allows ${operation.toUpperCase()} on ${name}, but ${who} may not ${operation} ${operation === 'delete' ? 'its rows' : 'all its columns'}.`,
        });
      } else if (!inDialect && granted && options.role !== undefined) {
        differences.push({
          kind: 'operation_outside_dialect',
          relation: name,
          operation,
          message: `${who} may ${operation.toUpperCase()} on ${name}, which the dialect does not allow.`,
        });
      }
    }
  }
  if (options.role !== undefined) {
    const schemas = [...new Set(read.flatMap((r) => (r.schema === undefined ? [] : [r.schema])))];
    for (const reachable of await reachableRelations(client, schemas, options.role)) {
      if (read.some((r) => r.name === reachable.name && r.schema === reachable.schema)) continue;
      differences.push({
        kind: 'extra_relation',
        relation: `${reachable.schema}.${reachable.name}`,
        message: `${options.role} holds privileges on ${reachable.schema}.${reachable.name}, which is not a relation of the dialect.`,
      });
    }
  }
  return differences;
}

/** The differences as one message (dialect_drift, a server refusing to start). */
export function describeDifferences(differences: readonly DialectDifference[]): string {
  return differences.map((d) => d.message).join(' ');
}
