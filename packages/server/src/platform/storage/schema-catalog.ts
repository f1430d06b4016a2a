import type { Queryable } from './database.js';
import {
  GLOBAL_RELATIONS,
  SQL_ROLE,
  USER_RELATIONS,
  type UserRelationName,
  WORKSPACE_ID_SETTING,
} from './names.js';

export type RelationOperation = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface RelationColumn {
  name: string;
  /** PostgreSQL's name of the type (format_type), e.g. `numeric`, `timestamp with time zone`. */
  type: string;
  nullable: boolean;
  /** The default as SQL, a description for values filled from the request, or null. */
  default: string | null;
}

export interface RelationDescription {
  name: UserRelationName;
  kind: 'table' | 'view';
  scope: 'workspace' | 'global';
  /** What the SQL role is granted, read from the live catalog. */
  operations: RelationOperation[];
  columns: RelationColumn[];
  hints: string[];
}

interface CatalogRow {
  relation: UserRelationName;
  relkind: string;
  can_select: boolean;
  can_insert: boolean;
  can_update: boolean;
  can_delete: boolean;
  column_name: string;
  column_type: string;
  not_null: boolean;
  column_default: string | null;
}

const CATALOG_SQL = `
SELECT c.relname AS relation, c.relkind::text AS relkind,
       pg_catalog.has_table_privilege($2, c.oid, 'SELECT') AS can_select,
       pg_catalog.has_table_privilege($2, c.oid, 'INSERT') AS can_insert,
       pg_catalog.has_table_privilege($2, c.oid, 'UPDATE') AS can_update,
       pg_catalog.has_table_privilege($2, c.oid, 'DELETE') AS can_delete,
       a.attname AS column_name,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS column_type,
       a.attnotnull AS not_null,
       pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS column_default
FROM pg_catalog.pg_class AS c
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace AND n.nspname = 'public'
JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = c.oid AND d.adnum = a.attnum
WHERE c.relname = ANY($1::text[])
ORDER BY c.relname, a.attnum`;

function describeDefault(expression: string | null): string | null {
  if (expression === null) return null;
  // Migration 0011 reads the setting through expense_internal.context_workspace_id().
  if (expression.includes(WORKSPACE_ID_SETTING) || expression.includes('context_workspace_id()')) {
    return "the request's workspace";
  }
  return expression.replace(/::text$/, '');
}

/** The seven user relations as the live catalog has them (columns, types, defaults, the SQL role's grants). */
/** The relations the SQL role may use, from the live catalog, each with its hints (see relationHints). */
export async function describeRelations(
  db: Queryable,
  hints: Record<UserRelationName, string[]>,
): Promise<RelationDescription[]> {
  const { rows } = await db.query<CatalogRow>(CATALOG_SQL, [USER_RELATIONS, SQL_ROLE]);
  const byName = new Map<string, RelationDescription>();
  for (const row of rows) {
    let relation = byName.get(row.relation);
    if (!relation) {
      const granted: [RelationOperation, boolean][] = [
        ['SELECT', row.can_select],
        ['INSERT', row.can_insert],
        ['UPDATE', row.can_update],
        ['DELETE', row.can_delete],
      ];
      relation = {
        name: row.relation,
        kind: row.relkind === 'v' ? 'view' : 'table',
        scope: GLOBAL_RELATIONS.has(row.relation) ? 'global' : 'workspace',
        operations: granted.filter(([, allowed]) => allowed).map(([operation]) => operation),
        columns: [],
        hints: hints[row.relation],
      };
      byName.set(row.relation, relation);
    }
    relation.columns.push({
      name: row.column_name,
      type: row.column_type,
      nullable: !row.not_null,
      default: describeDefault(row.column_default),
    });
  }
  return USER_RELATIONS.flatMap((name) => byName.get(name) ?? []);
}
