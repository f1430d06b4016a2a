/**
 * What the catalog says about relations: their columns in table order and the privileges a role holds. Shared by
 * introspectDialect and verifyDialect. Works over any client whose `query(text)` resolves to `{ rows }`: a pg
 * Client or Pool, a PGlite instance, a SqlSession. Values may come back parsed or as PostgreSQL's text output.
 */
import type { Operation } from '../types.js';
import { type CatalogClient, literal } from './sql.js';
import { rlsBypassLateral } from './views.js';

export { type CatalogClient, identifier, literal } from './sql.js';

/** A relation as the catalog has it. */
export interface CatalogRelation {
  /** As the caller named it. */
  name: string;
  /** False when the name resolves to no relation. */
  found: boolean;
  /** The schema it resolved in. */
  schema: string | undefined;
  /** pg_class.relkind: 'r' table, 'p' partitioned table, 'v' view, 'm' materialized view, 'f' foreign table. */
  kind: string | undefined;
  /** Columns in table order (attnum), dropped ones left out. */
  columns: string[];
  /** The columns the role may SELECT, in table order. */
  readable: string[];
  /** The role may SELECT some of the columns, not all: the others are private (column privileges). */
  partial: boolean;
  /** Operations the role may perform on every column (SELECT, INSERT, UPDATE) or on the table (DELETE). */
  granted: Set<Operation>;
  /** The same over the readable columns only: what the role holds on the relation as a partial one. */
  grantedReadable: Set<Operation>;
  /** Operations the role may perform on at least one column, or on the table (DELETE). */
  held: Set<Operation>;
  /** Read with `views`: the tables with row-level security this view reads past their policies (views.ts). */
  bypasses: { table: string; owner: string }[];
}

/** The role a catalog read asks about: a named role, or the session's current_user. */
export const roleExpression = (role: string | undefined): string =>
  role === undefined ? 'current_user' : `${literal(role)}::pg_catalog.name`;

const truthy = (value: unknown): boolean => value === true || value === 't' || value === 'true';

/**
 * Reads the relations named (unqualified names resolve through the session's search_path, as a statement's do;
 * `schema.name` is read in that schema), their columns and the role's privileges, in one query.
 */
export async function readRelations(
  client: CatalogClient,
  names: readonly { name: string; qualified: string }[],
  role: string | undefined,
  options: { views?: boolean } = {},
): Promise<CatalogRelation[]> {
  if (names.length === 0) return [];
  const r = roleExpression(role);
  const values = names.map((n, i) => `(${i}, ${literal(n.qualified)})`).join(', ');
  const privilege = (kind: string) =>
    `pg_catalog.has_column_privilege(${r}, c.oid, a.attnum, '${kind}') AS can_${kind.toLowerCase()}`;
  const result = await client.query(
    `SELECT d.i AS i, n.nspname AS schema, c.relkind AS kind, a.attname AS column, a.attnum AS position, ${privilege('SELECT')}, ${privilege('INSERT')}, ${privilege('UPDATE')}, pg_catalog.has_table_privilege(${r}, c.oid, 'DELETE') AS can_delete${options.views ? ', bypass.*' : ''} FROM (VALUES ${values}) AS d(i, name) LEFT JOIN pg_catalog.pg_class AS c ON c.oid = pg_catalog.to_regclass(d.name) LEFT JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace ${options.views ? rlsBypassLateral('c') : ''} LEFT JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped`,
  );
  const relations = names.map(
    (n): CatalogRelation => ({
      name: n.name,
      found: false,
      schema: undefined,
      kind: undefined,
      columns: [],
      readable: [],
      partial: false,
      granted: new Set(),
      grantedReadable: new Set(),
      held: new Set(),
      bypasses: [],
    }),
  );
  type Column = { name: string; position: number; held: Set<Operation> };
  const columns = relations.map((): Column[] => []);
  const deletable = relations.map(() => false);
  for (const raw of result.rows) {
    const row = raw as Record<string, unknown>;
    const i = Number(row.i);
    const relation = relations[i];
    if (!relation || row.schema === null || row.schema === undefined) continue;
    relation.found = true;
    relation.schema = String(row.schema);
    relation.kind = String(row.kind);
    deletable[i] = truthy(row.can_delete);
    if (typeof row.bypass_table === 'string') {
      const table = `${String(row.bypass_schema)}.${row.bypass_table}`;
      const owner = String(row.bypass_owner);
      if (!relation.bypasses.some((b) => b.table === table && b.owner === owner))
        relation.bypasses.push({ table, owner });
    }
    if (row.column === null || row.column === undefined) continue;
    const held = new Set<Operation>(
      (['select', 'insert', 'update'] as const).filter((o) => truthy(row[`can_${o}`])),
    );
    columns[i]?.push({ name: String(row.column), position: Number(row.position), held });
  }
  relations.forEach((relation, i) => {
    if (!relation.found) return;
    const all = (columns[i] ?? []).sort((a, b) => a.position - b.position);
    const readable = all.filter((c) => c.held.has('select'));
    relation.columns = all.map((c) => c.name);
    relation.readable = readable.map((c) => c.name);
    relation.partial = readable.length > 0 && readable.length < all.length;
    for (const operation of ['select', 'insert', 'update'] as const) {
      if (all.every((c) => c.held.has(operation))) relation.granted.add(operation);
      if (readable.length > 0 && readable.every((c) => c.held.has(operation)))
        relation.grantedReadable.add(operation);
    }
    for (const c of all) for (const operation of c.held) relation.held.add(operation);
    if (deletable[i])
      for (const set of [relation.granted, relation.grantedReadable, relation.held]) set.add('delete');
  });
  return relations;
}

/**
 * The tables, views and foreign tables of the given schemas on which the role holds any of SELECT, INSERT,
 * UPDATE or DELETE (on the table or on one of its columns), by name.
 */
export async function reachableRelations(
  client: CatalogClient,
  schemas: readonly string[],
  role: string | undefined,
  options: { partitions?: boolean } = {},
): Promise<{ schema: string; name: string }[]> {
  if (schemas.length === 0) return [];
  const r = roleExpression(role);
  // A partition is read through its parent (whose row-level security it does not take when named itself).
  const partitions = options.partitions === false ? ' AND NOT c.relispartition' : '';
  const result = await client.query(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname IN (${schemas.map(literal).join(', ')}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')${partitions} AND (pg_catalog.has_table_privilege(${r}, c.oid, 'SELECT, INSERT, UPDATE, DELETE') OR pg_catalog.has_any_column_privilege(${r}, c.oid, 'SELECT, INSERT, UPDATE'))`,
  );
  return result.rows
    .map((raw) => raw as Record<string, unknown>)
    .map((row) => ({ schema: String(row.schema), name: String(row.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
