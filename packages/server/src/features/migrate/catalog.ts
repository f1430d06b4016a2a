/**
 * What `migrate-to` copies, read from the catalog rather than listed by hand: every table of every schema the
 * migrations create (all but PostgreSQL's own), its columns, the foreign keys between them (the copy order), the
 * sequences, and the triggers of the target. A table added by a later migration is copied like the others, or
 * the command refuses naming it (a kind of relation it cannot copy, a reference cycle, a schema the target lacks).
 */
import type { Queryable } from '../../platform/storage/database.js';
import { quoteIdent } from '../portability/columns.js';
import { MigrateError } from './errors.js';

export interface CatalogColumn {
  name: string;
  /** format_type: what a text value is cast back to on the target. */
  type: string;
  /** GENERATED ALWAYS AS (...) STORED: computed by the target, never copied. */
  generated: boolean;
}

export interface CatalogTable {
  /** schema.table, unquoted: for people. */
  name: string;
  /** "schema"."table": for SQL. */
  sql: string;
  schema: string;
  kind: 'table' | 'partitioned table' | 'materialized view' | 'foreign table';
  columns: CatalogColumn[];
}

export interface CatalogSequence {
  name: string;
  sql: string;
  /** The column the sequence feeds (identity or serial), when it is owned by one. */
  owner?: { table: string; column: string };
}

export interface Catalog {
  tables: Map<string, CatalogTable>;
  /** [referencing, referenced] table names, one pair per foreign key. */
  references: [string, string][];
  sequences: Map<string, CatalogSequence>;
}

/** The schemas of PostgreSQL itself; every other schema is the migrations'. */
const OURS = `n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'`;

const KINDS: Record<string, CatalogTable['kind']> = {
  r: 'table',
  p: 'partitioned table',
  m: 'materialized view',
  f: 'foreign table',
};

const qualified = (schema: string, name: string) => `${quoteIdent(schema)}.${quoteIdent(name)}`;

export async function readCatalog(db: Queryable): Promise<Catalog> {
  const { rows: relations } = await db.query<{ schema: string; name: string; kind: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind
     FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relispartition AND ${OURS}
     ORDER BY 1, 2`,
  );
  const tables = new Map<string, CatalogTable>();
  for (const r of relations) {
    const name = `${r.schema}.${r.name}`;
    tables.set(name, {
      name,
      sql: qualified(r.schema, r.name),
      schema: r.schema,
      kind: KINDS[r.kind] ?? 'table',
      columns: [],
    });
  }
  const { rows: columns } = await db.query<{
    schema: string;
    table: string;
    name: string;
    type: string;
    generated: boolean;
  }>(
    `SELECT n.nspname AS schema, c.relname AS table, a.attname AS name,
            pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attgenerated <> '' AS generated
     FROM pg_catalog.pg_attribute AS a
     JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
     JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
       AND ${OURS}
     ORDER BY n.nspname, c.relname, a.attnum`,
  );
  for (const c of columns) {
    tables
      .get(`${c.schema}.${c.table}`)
      ?.columns.push({ name: c.name, type: c.type, generated: c.generated });
  }
  const { rows: keys } = await db.query<{ from: string; to: string }>(
    `SELECT n.nspname || '.' || c.relname AS from, fn.nspname || '.' || f.relname AS to
     FROM pg_catalog.pg_constraint AS k
     JOIN pg_catalog.pg_class AS c ON c.oid = k.conrelid
     JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
     JOIN pg_catalog.pg_class AS f ON f.oid = k.confrelid
     JOIN pg_catalog.pg_namespace AS fn ON fn.oid = f.relnamespace
     WHERE k.contype = 'f' AND ${OURS}
     ORDER BY 1, 2`,
  );
  const { rows: sequences } = await db.query<{
    schema: string;
    name: string;
    owner_schema: string | null;
    owner_table: string | null;
    owner_column: string | null;
  }>(
    `SELECT n.nspname AS schema, s.relname AS name,
            tn.nspname AS owner_schema, t.relname AS owner_table, a.attname AS owner_column
     FROM pg_catalog.pg_class AS s
     JOIN pg_catalog.pg_namespace AS n ON n.oid = s.relnamespace
     LEFT JOIN pg_catalog.pg_depend AS d
       ON d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = s.oid AND d.deptype IN ('a', 'i')
          AND d.refclassid = 'pg_catalog.pg_class'::regclass
     LEFT JOIN pg_catalog.pg_class AS t ON t.oid = d.refobjid
     LEFT JOIN pg_catalog.pg_namespace AS tn ON tn.oid = t.relnamespace
     LEFT JOIN pg_catalog.pg_attribute AS a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
     WHERE s.relkind = 'S' AND ${OURS}
     ORDER BY 1, 2`,
  );
  return {
    tables,
    references: keys.map((k) => [k.from, k.to]),
    sequences: new Map(
      sequences.map((s) => [
        `${s.schema}.${s.name}`,
        {
          name: `${s.schema}.${s.name}`,
          sql: qualified(s.schema, s.name),
          ...(s.owner_schema && s.owner_table && s.owner_column
            ? { owner: { table: `${s.owner_schema}.${s.owner_table}`, column: s.owner_column } }
            : {}),
        },
      ]),
    ),
  };
}

const SCHEMA_HINT =
  'Run migrate-to with the same version of expense-server that last served the embedded database, into a database no other application shares; see docs/operations.md (Moving to PostgreSQL).';

/**
 * Every source table exists on the target with the same columns of the same types, and is a plain table; the
 * target may hold more (another application's tables are left alone).
 */
export function checkSameSchema(source: Catalog, target: Catalog): void {
  const problems: string[] = [];
  for (const table of source.tables.values()) {
    if (table.kind !== 'table') {
      problems.push(`${table.name} is a ${table.kind}, which migrate-to does not copy`);
      continue;
    }
    const there = target.tables.get(table.name);
    if (!there) {
      problems.push(`${table.name} is missing on the target`);
      continue;
    }
    const describe = (t: CatalogTable) => t.columns.map((c) => `${c.name} ${c.type}`).join(', ');
    if (describe(table) !== describe(there)) {
      problems.push(
        `${table.name} has columns (${describe(table)}) here, (${describe(there)}) on the target`,
      );
    }
  }
  for (const sequence of source.sequences.keys()) {
    if (!target.sequences.has(sequence)) problems.push(`sequence ${sequence} is missing on the target`);
  }
  if (problems.length > 0) {
    throw new MigrateError(
      'migrate_schema_mismatch',
      `The embedded database and the target differ: ${problems.join('; ')}. Nothing was copied.`,
      SCHEMA_HINT,
    );
  }
}

/**
 * The tables in an order that inserts every referenced row before the rows that reference it (ties by name).
 * A table that references itself, or tables that reference each other in a cycle, cannot be ordered: refused.
 */
export function copyOrder(catalog: Catalog, names: Iterable<string>): string[] {
  const wanted = new Set(names);
  const needs = new Map<string, Set<string>>([...wanted].map((name) => [name, new Set<string>()]));
  for (const [from, to] of catalog.references) {
    if (!wanted.has(from) || !wanted.has(to)) continue;
    if (from === to) {
      throw new MigrateError(
        'migrate_schema_mismatch',
        `${from} references itself: migrate-to cannot order its rows. Nothing was copied.`,
        SCHEMA_HINT,
      );
    }
    needs.get(from)?.add(to);
  }
  const order: string[] = [];
  const done = new Set<string>();
  while (done.size < needs.size) {
    const ready = [...needs]
      .filter(([name, deps]) => !done.has(name) && [...deps].every((d) => done.has(d)))
      .map(([name]) => name)
      .sort();
    if (ready.length === 0) {
      const left = [...needs.keys()].filter((name) => !done.has(name)).sort();
      throw new MigrateError(
        'migrate_schema_mismatch',
        `The tables ${left.join(', ')} reference each other in a cycle: migrate-to cannot order their rows. Nothing was copied.`,
        SCHEMA_HINT,
      );
    }
    for (const name of ready) {
      done.add(name);
      order.push(name);
    }
  }
  return order;
}
