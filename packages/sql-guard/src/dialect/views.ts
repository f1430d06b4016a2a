/**
 * Views over tables with row-level security: which run with their owner's rights past the policies
 * (view_bypasses_rls), and what a security_invoker view needs the role to read underneath (pg_rewrite and pg_depend
 * record the columns a view's query reads).
 */
import { type CatalogClient, literal } from './sql.js';

/** Whether a relation's reloptions make it security_invoker (`c` the pg_class row). */
export const invoker = (c: string): string =>
  `coalesce((SELECT o.option_value::pg_catalog.bool FROM pg_catalog.pg_options_to_table(${c}.reloptions) AS o WHERE o.option_name = 'security_invoker'), false)`;

/** A view's rules and what they read (`d.refobjid`), with the column of each (`d.refobjsubid`, 0: the relation). */
export const reads = (d: string): string => `pg_catalog.pg_rewrite AS rw
    JOIN pg_catalog.pg_depend AS ${d} ON ${d}.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND ${d}.objid = rw.oid
      AND ${d}.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND ${d}.deptype = 'n'`;

/** The oids of the relations named by an array of text expressions (qualified or resolved on the search_path). */
const oids = (relations: string): string =>
  `ARRAY(SELECT pg_catalog.to_regclass(n)::pg_catalog.oid FROM pg_catalog.unnest(${relations}) AS n)`;

/**
 * A query of (schema, relation, column) that a role reading the given views with its own rights needs SELECT on:
 * the columns that security_invoker views read, through further security_invoker views (a view without it reads
 * with its owner's rights). `relations` is a SQL expression of a text array of relation names.
 */
export function invokerViewReadsQuery(relations: string): string {
  return `WITH RECURSIVE reads(view, rel, attnum, depth) AS (
  SELECT v.oid, d.refobjid, d.refobjsubid, 0
  FROM pg_catalog.pg_class AS v JOIN ${reads('d')} ON rw.ev_class = v.oid
  WHERE v.oid = ANY (${oids(relations)}) AND v.relkind = 'v' AND ${invoker('v')} AND d.refobjid <> v.oid
  UNION
  SELECT r.rel, d.refobjid, d.refobjsubid, r.depth + 1
  FROM reads AS r JOIN pg_catalog.pg_class AS v ON v.oid = r.rel AND v.relkind = 'v' AND ${invoker('v')}
  JOIN ${reads('d')} ON rw.ev_class = v.oid
  WHERE d.refobjid <> v.oid AND r.depth < 32
)
SELECT DISTINCT n.nspname AS schema, c.relname AS relation, a.attname AS column, a.attnum AS position
FROM reads AS r JOIN pg_catalog.pg_class AS c ON c.oid = r.rel
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute AS a ON a.attrelid = r.rel AND a.attnum = r.attnum AND NOT a.attisdropped
WHERE r.attnum > 0 AND r.rel <> ALL (${oids(relations)})`;
}

export interface InvokerRead {
  schema: string;
  relation: string;
  columns: string[];
}

/** What the role needs to read under the dialect's security_invoker views, by relation, columns in table order. */
export async function invokerViewReads(
  client: CatalogClient,
  qualified: readonly string[],
): Promise<InvokerRead[]> {
  if (qualified.length === 0) return [];
  const names = `ARRAY[${qualified.map(literal).join(', ')}]::pg_catalog.text[]`;
  const result = await client.query(`${invokerViewReadsQuery(names)} ORDER BY 1, 2, 4`);
  const byRelation = new Map<string, InvokerRead>();
  for (const raw of result.rows) {
    const row = raw as Record<string, unknown>;
    const key = `${String(row.schema)}.${String(row.relation)}`;
    let entry = byRelation.get(key);
    if (!entry) {
      entry = { schema: String(row.schema), relation: String(row.relation), columns: [] };
      byRelation.set(key, entry);
    }
    entry.columns.push(String(row.column));
  }
  return [...byRelation.values()];
}

/**
 * A LATERAL subquery over the pg_class row `c` of a dialect relation: when it is a view (or materialized view), a row
 * (bypass_schema, bypass_table, bypass_owner) for each table with row-level security it reads with the rights of a
 * role the policies do not apply to: a superuser, a role with BYPASSRLS, or the table's owner (or a member of it)
 * unless the table forces row-level security. Followed through nested views: a view without security_invoker reads
 * with its owner's rights, one with it with the rights of whoever reads it (NULL here: the session's role).
 */
export function rlsBypassLateral(c: string): string {
  return `LEFT JOIN LATERAL (
  WITH RECURSIVE walk(rel, checker, depth) AS (
    SELECT ${c}.oid, NULL::pg_catalog.oid, 0 WHERE ${c}.relkind IN ('v', 'm')
    UNION
    SELECT dep.refobjid, CASE WHEN v.relkind = 'v' AND ${invoker('v')} THEN w.checker ELSE v.relowner END, w.depth + 1
    FROM walk AS w JOIN pg_catalog.pg_class AS v ON v.oid = w.rel AND v.relkind IN ('v', 'm')
    JOIN ${reads('dep')} ON rw.ev_class = v.oid
    WHERE dep.refobjid <> v.oid AND w.depth < 32
  )
  SELECT DISTINCT tn.nspname AS bypass_schema, t.relname AS bypass_table, r.rolname AS bypass_owner
  FROM walk AS w JOIN pg_catalog.pg_class AS t ON t.oid = w.rel AND t.relkind IN ('r', 'p') AND t.relrowsecurity
  JOIN pg_catalog.pg_namespace AS tn ON tn.oid = t.relnamespace
  JOIN pg_catalog.pg_roles AS r ON r.oid = w.checker
  WHERE r.rolsuper OR r.rolbypassrls
     OR (pg_catalog.pg_has_role(r.oid, t.relowner, 'USAGE') AND NOT t.relforcerowsecurity)
) AS bypass ON true`;
}
