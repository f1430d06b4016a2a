/**
 * Tenant isolation by row-level security, as verifyDialect checks it with a tenant column: every table whose rows
 * carry the tenant column, and that the role reaches (named in the dialect, or read beneath one of its views), has
 * row-level security on; the role is not exempt from it (a superuser, BYPASSRLS, or the table's owner or a member of
 * it without FORCE ROW LEVEL SECURITY); no view reads such a table with another role's rights (a view without
 * security_invoker, a materialized view) or calls a SECURITY DEFINER function. A partition and an inherited child do
 * not take their parent's row-level security: read directly they show every tenant's rows.
 */
import type { DialectDifference } from '../types.js';
import { roleExpression } from './catalog.js';
import { type CatalogClient, literal } from './sql.js';
import { invoker, reads } from './views.js';

type Found = { name: string; qualified: string };

/** The dialect relations as a VALUES list of (name, oid), resolved as the statements' names are. */
const dialectRelations = (relations: readonly Found[]): string =>
  `d(name, oid) AS (SELECT v.name, pg_catalog.to_regclass(v.qualified)::pg_catalog.oid FROM (VALUES ${relations
    .map((r) => `(${literal(r.name)}, ${literal(r.qualified)})`)
    .join(', ')}) AS v(name, qualified))`;

/** Whether the pg_class row `c` has the tenant column. */
const carries = (c: string, tenant: string): string =>
  `EXISTS (SELECT FROM pg_catalog.pg_attribute AS ta WHERE ta.attrelid = ${c}.oid AND ta.attname = ${tenant} AND NOT ta.attisdropped)`;

export async function isolationGaps(
  client: CatalogClient,
  relations: readonly Found[],
  tenantColumn: string,
  role: string | undefined,
): Promise<DialectDifference[]> {
  if (relations.length === 0) return [];
  const tenant = literal(tenantColumn);
  const who = roleExpression(role);
  // What each dialect relation reaches: itself, and through views what they read (rel), with whose rights
  // (checker: NULL for the reader, else a view's owner) and through which view (via).
  const result = await client.query(`WITH RECURSIVE ${dialectRelations(relations)},
walk(name, rel, checker, via, depth) AS (
  SELECT d.name, d.oid, NULL::pg_catalog.oid, NULL::pg_catalog.oid, 0 FROM d WHERE d.oid IS NOT NULL
  UNION
  SELECT w.name, dep.refobjid, CASE WHEN v.relkind = 'v' AND ${invoker('v')} THEN w.checker ELSE v.relowner END, v.oid, w.depth + 1
  FROM walk AS w JOIN pg_catalog.pg_class AS v ON v.oid = w.rel AND v.relkind IN ('v', 'm')
  JOIN ${reads('dep')} ON rw.ev_class = v.oid
  WHERE dep.refobjid <> v.oid AND w.depth < 32
),
me AS (SELECT r.oid, r.rolname, r.rolsuper, r.rolbypassrls FROM pg_catalog.pg_roles AS r WHERE r.rolname = ${who})
SELECT DISTINCT 'tenant_table_without_rls' AS kind, w.name AS relation, tn.nspname || '.' || t.relname AS detail, NULL AS extra, w.depth = 0 AS direct
FROM walk AS w JOIN pg_catalog.pg_class AS t ON t.oid = w.rel JOIN pg_catalog.pg_namespace AS tn ON tn.oid = t.relnamespace
WHERE t.relkind IN ('r', 'p', 'f') AND NOT t.relrowsecurity AND ${carries('t', tenant)}
UNION ALL
SELECT DISTINCT 'role_bypasses_rls', w.name, tn.nspname || '.' || t.relname,
  CASE WHEN me.rolsuper THEN 'is a superuser' WHEN me.rolbypassrls THEN 'has BYPASSRLS'
       ELSE 'owns it (or is a member of its owner ' || pg_catalog.pg_get_userbyid(t.relowner) || ') and it does not force row-level security' END, w.depth = 0
FROM walk AS w JOIN pg_catalog.pg_class AS t ON t.oid = w.rel AND w.checker IS NULL
JOIN pg_catalog.pg_namespace AS tn ON tn.oid = t.relnamespace CROSS JOIN me
WHERE t.relkind IN ('r', 'p') AND t.relrowsecurity
  AND (me.rolsuper OR me.rolbypassrls OR (pg_catalog.pg_has_role(me.oid, t.relowner, 'USAGE') AND NOT t.relforcerowsecurity))
UNION ALL
SELECT DISTINCT 'view_reads_with_owner_rights', w.name, tn.nspname || '.' || t.relname, pg_catalog.pg_get_userbyid(w.checker), false
FROM walk AS w JOIN pg_catalog.pg_class AS t ON t.oid = w.rel AND w.checker IS NOT NULL
JOIN pg_catalog.pg_namespace AS tn ON tn.oid = t.relnamespace CROSS JOIN me
WHERE t.relkind IN ('r', 'p', 'f') AND ${carries('t', tenant)} AND w.checker <> me.oid
UNION ALL
SELECT DISTINCT 'view_calls_definer_function', w.name, pg_catalog.format('%s.%s', fn.nspname, f.proname), pg_catalog.pg_get_userbyid(f.proowner), false
FROM walk AS w JOIN pg_catalog.pg_class AS v ON v.oid = w.rel AND v.relkind IN ('v', 'm')
JOIN pg_catalog.pg_rewrite AS rw ON rw.ev_class = v.oid
JOIN pg_catalog.pg_depend AS fd ON fd.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND fd.objid = rw.oid
  AND fd.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
JOIN pg_catalog.pg_proc AS f ON f.oid = fd.refobjid AND f.prosecdef
JOIN pg_catalog.pg_namespace AS fn ON fn.oid = f.pronamespace
ORDER BY 1, 2, 3`);
  return result.rows.map((raw) => differenceOf(raw as Gap, tenantColumn, role ?? 'the session role'));
}

interface Gap {
  kind: string;
  relation: string;
  /** The table (or, for a definer function, the function), schema-qualified. */
  detail: string;
  extra: string | null;
  /** The dialect relation is the table itself (not a view over it). */
  direct: boolean | string;
}

function differenceOf(gap: Gap, tenant: string, who: string): DialectDifference {
  const { relation, detail } = gap;
  const direct = gap.direct === true || gap.direct === 't';
  const through = direct ? relation : `${relation}, which reads ${detail}`;
  switch (gap.kind) {
    case 'tenant_table_without_rls':
      return {
        kind: 'tenant_table_without_rls',
        relation,
        table: detail,
        message: `${detail} carries ${tenant} but has no row-level security (a partition or an inherited table does not take its parent's): through ${through}, every tenant's rows can be read${direct ? ' and written' : ''}. Enable row-level security with a policy on ${tenant}, or leave it out of the dialect.`,
      };
    case 'role_bypasses_rls':
      return {
        kind: 'role_bypasses_rls',
        relation,
        table: detail,
        message: `${who} ${gap.extra}, so the row-level security of ${detail} does not apply to it: through ${through}, every tenant's rows are visible. Use a role that owns nothing and has neither SUPERUSER nor BYPASSRLS, or FORCE ROW LEVEL SECURITY on the table.`,
      };
    case 'view_reads_with_owner_rights':
      return {
        kind: 'view_reads_with_owner_rights',
        relation,
        table: detail,
        message: `View ${relation} reads ${detail}, which carries ${tenant}, with the rights of ${gap.extra} (a view without security_invoker, or a materialized view), so the reader's row-level security does not decide which tenant's rows it shows. Make it WITH (security_invoker = true), or leave it out of the dialect.`,
      };
    default:
      return {
        kind: 'view_calls_definer_function',
        relation,
        function: detail,
        message: `View ${relation} calls ${detail}, a SECURITY DEFINER function that runs with the rights of ${gap.extra}, past the reader's row-level security. Make the function SECURITY INVOKER, or leave the view out of the dialect.`,
      };
  }
}
