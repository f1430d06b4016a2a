/**
 * Foreign keys that cross tenants. PostgreSQL checks a foreign key without row-level security, so a key that does not
 * carry the tenant column lets one tenant link its rows to another tenant's, and tells it (success or 23503) which of
 * another tenant's ids exist. A composite key `(tenant, id)` referencing `(tenant, id)` closes both.
 */
import { type CatalogClient, literal } from './sql.js';

export interface CrossTenantReference {
  constraint: string;
  /** The referencing relation, as the dialect names it. */
  relation: string;
  /** The referenced relation, as the dialect names it (schema-qualified when it is not the dialect's). */
  references: string;
  /** The key's columns, in the constraint's order. */
  columns: string[];
}

/**
 * The foreign keys of the given relations to any table, both carrying `tenantColumn`, whose key does not pair the
 * referencing relation's tenant column with the referenced one's (a table outside the dialect answers 23503 for
 * another tenant's ids all the same). The referenced relation as the dialect names it, else schema-qualified.
 */
export async function crossTenantReferences(
  client: CatalogClient,
  relations: readonly { name: string; qualified: string }[],
  tenantColumn: string,
): Promise<CrossTenantReference[]> {
  if (relations.length === 0) return [];
  const values = relations.map((r) => `(${literal(r.name)}, ${literal(r.qualified)})`).join(', ');
  const tenant = literal(tenantColumn);
  const result = await client.query(`WITH d(name, oid) AS (
  SELECT v.name, pg_catalog.to_regclass(v.qualified)::pg_catalog.oid FROM (VALUES ${values}) AS v(name, qualified)
)
SELECT k.conname AS constraint, child.name AS relation,
       coalesce(parent.name, pn.nspname || '.' || pc.relname) AS references,
       ARRAY(SELECT a.attname FROM pg_catalog.unnest(k.conkey) WITH ORDINALITY AS u(attnum, i)
             JOIN pg_catalog.pg_attribute AS a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.i)::pg_catalog.text[] AS columns
FROM pg_catalog.pg_constraint AS k
JOIN d AS child ON child.oid = k.conrelid
JOIN pg_catalog.pg_class AS pc ON pc.oid = k.confrelid
JOIN pg_catalog.pg_namespace AS pn ON pn.oid = pc.relnamespace
LEFT JOIN d AS parent ON parent.oid = k.confrelid
JOIN pg_catalog.pg_attribute AS ct ON ct.attrelid = k.conrelid AND ct.attname = ${tenant} AND NOT ct.attisdropped
JOIN pg_catalog.pg_attribute AS pt ON pt.attrelid = k.confrelid AND pt.attname = ${tenant} AND NOT pt.attisdropped
WHERE k.contype = 'f'
  AND NOT EXISTS (SELECT FROM pg_catalog.generate_subscripts(k.conkey, 1) AS s(i)
                  WHERE k.conkey[s.i] = ct.attnum AND k.confkey[s.i] = pt.attnum)
ORDER BY 2, 1`);
  return result.rows.map((raw) => {
    const row = raw as Record<string, unknown>;
    return {
      constraint: String(row.constraint),
      relation: String(row.relation),
      references: String(row.references),
      columns: textArray(row.columns),
    };
  });
}

/** A text[] as a driver returns it: parsed, or PostgreSQL's text output (`{a,b}`; plain names need no quoting). */
function textArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  const text = String(value ?? '');
  if (text === '{}' || text === '') return [];
  return text
    .slice(1, -1)
    .split(',')
    .map((part) => part.replace(/^"(.*)"$/, '$1').replace(/\\(.)/g, '$1'));
}
