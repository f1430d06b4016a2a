/**
 * The most bytes a column's value can take in the JSON `run` answers (serialize.ts), read from the catalog: the
 * type and type modifier of each column of the dialect's relations, as the database reports them. A read whose
 * output columns all have a bound, with at most so many rows, has a result size known before it runs (lean.ts).
 *
 * A type has a bound when its text output has one and the serializer keeps it so: fixed-width types, `numeric`
 * with a declared precision, `char(n)` and `varchar(n)` with a declared length. Every other type (`text`,
 * unconstrained `numeric`, `jsonb`, arrays, enums, `interval`, user types) has none. Domains count as their
 * base type (a domain over a domain: none), as PostgreSQL describes their columns to clients.
 *
 * A relation's validated CHECK constraints can bound a column further (`char_length(note) <= 2000`, `kind IN
 * (…)`, a numeric's scale and range: check-bounds.ts); the tighter of the two bounds counts.
 */
import { loadModule } from 'libpg-query';
import { type CatalogClient, identifier, literal } from '../dialect/catalog.js';
import { type CheckColumn, checkBounds } from './check-bounds.js';
import { sqlStateOf } from './errors.js';

/** Per relation of the dialect, its columns in table order, each with its JSON bound in bytes or null (none). */
export type ColumnWidths = ReadonlyMap<string, ReadonlyMap<string, number | null>>;

/** A string of `characters` characters as JSON: quotes, and at most 6 bytes a character (`\u001f`). */
const jsonString = (characters: number): number => 2 + 6 * characters;

/**
 * Bounds by type OID (built-in types have the same OID in every database). Each is the longest JSON of the
 * serializer's output for the type, `null` (4 bytes) included:
 * - bool `false`; int2 `-32768`; int4 `-2147483648`; oid `4294967295`; int8 `"-9223372036854775808"`.
 * - float4, float8: a JavaScript number, at most `-0.0000012345678901234567` (25), or `"-Infinity"`.
 * - date `"+5874897-12-31"`; time `"24:00:00.000000"`; timetz with a `+15:59:59` offset.
 * - timestamp `"+275760-09-13T00:00:00.000000"` (beyond JavaScript's dates the text, 28 at most, is shorter);
 *   timestamptz the same with an offset of at most `+15:59:59`.
 * - uuid: 36 characters, quoted.
 */
const fixed = new Map<number, number>([
  [16, 5], // bool
  [21, 6], // int2
  [23, 11], // int4
  [26, 10], // oid
  [20, 22], // int8
  [700, 25], // float4
  [701, 25], // float8
  [1082, 16], // date
  [1083, 17], // time
  [1266, 26], // timetz
  [1114, 31], // timestamp
  [1184, 40], // timestamptz
  [2950, 38], // uuid
]);

const NUMERIC = 1700;
const BPCHAR = 1042;
const VARCHAR = 1043;
/** PostgreSQL's VARHDRSZ: a type modifier of char(n), varchar(n) and numeric(p,s) counts from it. */
const VARHDRSZ = 4;

/**
 * The longest JSON of a value of the type `oid` with type modifier `typmod` (pg_attribute.atttypmod, -1 when
 * none was declared), in UTF-8 bytes; null when the type has no bound.
 */
export function maxJsonWidth(oid: number, typmod: number): number | null {
  const known = fixed.get(oid);
  if (known !== undefined) return known;
  if (typmod < VARHDRSZ) return null;
  if (oid === BPCHAR || oid === VARCHAR) return jsonString(typmod - VARHDRSZ);
  if (oid === NUMERIC) {
    const packed = typmod - VARHDRSZ;
    const precision = (packed >> 16) & 0xffff;
    // PostgreSQL 15 packs a negative scale in 11 bits (numeric(p, -s)); before, the scale was never negative.
    const scale = ((packed & 0x7ff) ^ 1024) - 1024;
    // The sign and: the digits and the zeros a negative scale adds (`-99900`); the digits and the point
    // (`-999.99`); or `0.` and the scale's digits (`-0.00999`). `NaN` (and `-Infinity`, which a declared precision
    // refuses) take at most 9.
    const text = 1 + (scale <= 0 ? precision - scale : scale < precision ? precision + 1 : scale + 2);
    return 2 + Math.max(text, 9);
  }
  return null;
}

export interface ReadOptions {
  /** The session is inside a transaction block (default): the CHECK constraints' read runs in a savepoint. */
  inTransaction?: boolean;
}

/**
 * Reads the columns of the relations (names resolve through the session's search_path, as the statements'
 * do) with their bounds, in two catalog queries: the columns with their types, and the expressions of the
 * relations' validated CHECK constraints (not NOT VALID). Only a plain table without inheritance children or
 * partitions counts its constraints: a foreign table's are not enforced, and a child (which may be a foreign table)
 * holds rows the parent's read returns. A relation the catalog does not have is left out.
 */
export async function readColumnWidths(
  client: CatalogClient,
  relations: readonly string[],
  options: ReadOptions = {},
): Promise<ColumnWidths> {
  const widths = new Map<string, Map<string, number | null>>();
  if (relations.length === 0) return widths;
  const values = relations.map((name, i) => `(${i}, ${literal(identifier(name))})`).join(', ');
  const result = await client.query(
    `SELECT d.i::pg_catalog.text AS i, a.attname::pg_catalog.text AS column, (CASE WHEN t.typtype <> 'd' THEN a.atttypid WHEN b.typtype <> 'd' THEN t.typbasetype END)::pg_catalog.int8::pg_catalog.text AS type, (CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END)::pg_catalog.text AS typmod, (c.collisdeterministic IS NOT FALSE)::pg_catalog.text AS deterministic FROM (VALUES ${values}) AS d(i, name) JOIN pg_catalog.pg_attribute AS a ON a.attrelid = pg_catalog.to_regclass(d.name) AND a.attnum > 0 AND NOT a.attisdropped JOIN pg_catalog.pg_type AS t ON t.oid = a.atttypid LEFT JOIN pg_catalog.pg_type AS b ON b.oid = t.typbasetype LEFT JOIN pg_catalog.pg_collation AS c ON c.oid = a.attcollation ORDER BY d.i, a.attnum`,
  );
  const checks = await readChecks(
    client,
    options.inTransaction ?? true,
    `SELECT d.i::pg_catalog.text AS i, pg_catalog.pg_get_expr(k.conbin, k.conrelid) AS expression FROM (VALUES ${values}) AS d(i, name) JOIN pg_catalog.pg_constraint AS k ON k.conrelid = pg_catalog.to_regclass(d.name) AND k.contype = 'c' AND k.convalidated JOIN pg_catalog.pg_class AS r ON r.oid = k.conrelid AND r.relkind = 'r' WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits AS h WHERE h.inhparent = k.conrelid) ORDER BY d.i, k.oid`,
  );
  const expressions = new Map<string, string[]>();
  for (const raw of checks) {
    const row = raw as Record<string, unknown>;
    const name = relations[Number(row.i)];
    if (name === undefined || typeof row.expression !== 'string') continue;
    expressions.set(name, [...(expressions.get(name) ?? []), row.expression]);
  }
  const described = new Map<string, Map<string, CheckColumn & { typmod: number }>>();
  for (const raw of result.rows) {
    const row = raw as Record<string, unknown>;
    const name = relations[Number(row.i)];
    if (name === undefined) continue;
    let columns = described.get(name);
    if (!columns) {
      columns = new Map();
      described.set(name, columns);
    }
    const type = row.type === null || row.type === undefined ? Number.NaN : Number(row.type);
    columns.set(String(row.column), {
      type: Number.isInteger(type) ? type : null,
      typmod: Number(row.typmod),
      deterministic: String(row.deterministic) === 'true',
    });
  }
  if (expressions.size > 0) await loadModule();
  for (const [name, columns] of described) {
    const checked = checkBounds(expressions.get(name) ?? [], columns);
    const bounded = new Map<string, number | null>();
    for (const [column, { type, typmod }] of columns) {
      const byType = type === null ? null : maxJsonWidth(type, typmod);
      const byCheck = checked.get(column);
      bounded.set(
        column,
        byCheck === undefined ? byType : byType === null ? byCheck : Math.min(byType, byCheck),
      );
    }
    widths.set(name, bounded);
  }
  return widths;
}

const INSUFFICIENT_PRIVILEGE = '42501';
const NO_ACTIVE_TRANSACTION = '25P01';

/**
 * The rows of the CHECK constraints' query, or none when the role may not call pg_get_expr: a role granted by
 * grantStatements before the lean path needed it reads on, with the bounds of the column types alone. Inside a
 * transaction the query runs in a savepoint, so that the refusal leaves the transaction usable; outside one (a
 * caller whose prelude opens the transaction in the statement's batch) a refused query changes nothing. A session
 * expected in a transaction that is not in one reads without the savepoint (`run` then refuses it: no_transaction).
 */
async function readChecks(
  client: CatalogClient,
  inTransaction: boolean,
  text: string,
): Promise<readonly unknown[]> {
  let savepoint = inTransaction;
  if (savepoint) {
    try {
      await client.query('SAVEPOINT sql_guard_checks');
    } catch (error) {
      if (sqlStateOf(error) !== NO_ACTIVE_TRANSACTION) throw error;
      savepoint = false;
    }
  }
  try {
    const { rows } = await client.query(text);
    if (savepoint) await client.query('RELEASE SAVEPOINT sql_guard_checks');
    return rows;
  } catch (error) {
    if (sqlStateOf(error) !== INSUFFICIENT_PRIVILEGE) throw error;
    if (savepoint) {
      await client.query('ROLLBACK TO SAVEPOINT sql_guard_checks');
      await client.query('RELEASE SAVEPOINT sql_guard_checks');
    }
    return [];
  }
}
