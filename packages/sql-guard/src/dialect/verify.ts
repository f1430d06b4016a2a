/** verifyDialect: every way a dialect differs from the database its statements run on. */
import type { Dialect, DialectDifference, Operation } from '../types.js';
import { type CatalogClient, identifier, reachableRelations, readRelations } from './catalog.js';
import { catalogRead } from './errors.js';
import { isolationGaps } from './isolation.js';
import { crossTenantReferences } from './tenants.js';
import { invokerViewReads } from './views.js';

export interface VerifyOptions {
  /**
   * Whose privileges to compare: without it, the client's current_user must hold every operation of the dialect;
   * with it, that role must hold them and nothing more (no other relation of the dialect's schemas, no other
   * operation on the dialect's relations).
   */
  role?: string;
  /**
   * The column that names a row's tenant (`tenant_id`, say). Each foreign key from a relation of the dialect to a
   * table that both carry it must include it (`cross_tenant_reference` otherwise); every table carrying it that the
   * role reaches, by name or beneath a view, has row-level security (`tenant_table_without_rls`) that applies to the
   * role (`role_bypasses_rls`); no view reads such a table with another role's rights
   * (`view_reads_with_owner_rights`) or calls a SECURITY DEFINER function (`view_calls_definer_function`).
   */
  tenantColumn?: string;
}

const OPERATIONS: readonly Operation[] = ['select', 'insert', 'update', 'delete'];

/**
 * Compares the dialect with the catalog (names resolve through the client's search_path, as the statements'
 * will): each relation exists, its columns are exactly the table's (the columns the role may read, for a partial
 * relation), in the table's order, and the role holds the dialect's operations; no view of the dialect reads a
 * table with row-level security past its policies; with `tenantColumn`, no foreign key crosses tenants. Returns []
 * when they agree. A failed catalog read throws an IntrospectionError (code `introspection_failed`).
 */
export function verifyDialect(
  client: CatalogClient,
  dialect: Dialect,
  options: VerifyOptions = {},
): Promise<DialectDifference[]> {
  return catalogRead('verifyDialect', () => differencesOf(client, dialect, options));
}

async function differencesOf(
  client: CatalogClient,
  dialect: Dialect,
  options: VerifyOptions,
): Promise<DialectDifference[]> {
  const names = Object.keys(dialect.relations);
  const read = await readRelations(
    client,
    names.map((name) => ({ name, qualified: identifier(name) })),
    options.role,
    { views: true },
  );
  const who = options.role ?? 'the session role';
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
    // A partial relation's columns are the ones the role may read; the others are private.
    const table = listed.partial === true ? relation.readable : relation.columns;
    for (const column of listed.columns) {
      if (listed.partial === true && relation.columns.includes(column) && !table.includes(column)) {
        differences.push({
          kind: 'missing_column',
          relation: name,
          column,
          message: `Column ${name}.${column} of the dialect is private: ${who} may not read it.`,
        });
      } else if (!table.includes(column)) {
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
          message:
            listed.partial === true
              ? `Column ${name}.${column}, private in the dialect, is readable by ${who}.`
              : `Column ${name}.${column} of the table is missing from the dialect (* would expand to it).`,
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
    for (const operation of OPERATIONS) {
      const inDialect = listed.operations.includes(operation);
      const granted = (listed.partial === true ? relation.grantedReadable : relation.granted).has(operation);
      if (inDialect && !granted) {
        differences.push({
          kind: 'operation_not_granted',
          relation: name,
          operation,
          message: `The dialect allows ${operation.toUpperCase()} on ${name}, but ${who} may not ${operation} ${operation === 'delete' ? 'its rows' : listed.partial === true ? 'all its readable columns' : 'all its columns'}.`,
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
  const found = read.flatMap((r) =>
    r.found && r.schema !== undefined
      ? [{ ...r, schema: r.schema, qualified: `${identifier(r.schema)}.${identifier(r.name)}` }]
      : [],
  );
  const views = found.filter((r) => r.kind === 'v' || r.kind === 'm');
  for (const view of views) {
    for (const bypass of view.bypasses) {
      differences.push({
        kind: 'view_bypasses_rls',
        relation: view.name,
        table: bypass.table,
        message: `View ${view.name} reads ${bypass.table}, which has row-level security, with the rights of ${bypass.owner}, whom its policies do not apply to: every tenant's rows are visible through it.`,
      });
    }
  }
  if (options.tenantColumn !== undefined) {
    for (const gap of await isolationGaps(client, found, options.tenantColumn, options.role)) {
      // A view whose owner bypasses row-level security is said once, as view_bypasses_rls.
      const said = differences.some(
        (d) =>
          d.kind === 'view_bypasses_rls' &&
          d.relation === gap.relation &&
          gap.kind === 'view_reads_with_owner_rights' &&
          (gap.table === d.table || gap.table?.endsWith(`.${d.table}`)),
      );
      if (!said) differences.push(gap);
    }
    for (const reference of await crossTenantReferences(client, found, options.tenantColumn)) {
      differences.push({
        kind: 'cross_tenant_reference',
        relation: reference.relation,
        constraint: reference.constraint,
        message: `Foreign key ${reference.constraint} of ${reference.relation} (${reference.columns.join(', ')}) references ${reference.references} without ${options.tenantColumn}: PostgreSQL checks it without row-level security, so a row may reference another tenant's, and the answer tells which of its ids exist.`,
      });
    }
  }
  if (options.role !== undefined) {
    const schemas = [...new Set(found.map((r) => r.schema))];
    // What the dialect's security_invoker views read underneath, the role must be able to read (column SELECT only).
    const beneath = await invokerViewReads(
      client,
      views.filter((r) => r.kind === 'v').map((r) => r.qualified),
    );
    const underViews = await readRelations(
      client,
      beneath.map((b) => ({
        name: b.relation,
        qualified: `${identifier(b.schema)}.${identifier(b.relation)}`,
      })),
      options.role,
    );
    const onlyReadsBeneath = (schema: string, relation: string): boolean => {
      const i = beneath.findIndex((b) => b.schema === schema && b.relation === relation);
      const held = underViews[i];
      const needed = beneath[i]?.columns ?? [];
      if (!held) return false;
      return (
        held.readable.every((c) => needed.includes(c)) &&
        [...held.held].every((operation) => operation === 'select')
      );
    };
    for (const reachable of await reachableRelations(client, schemas, options.role)) {
      if (read.some((r) => r.name === reachable.name && r.schema === reachable.schema)) continue;
      if (onlyReadsBeneath(reachable.schema, reachable.name)) continue;
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
