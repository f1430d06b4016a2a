/**
 * grantStatements: the privileges of a role that may do exactly what a dialect allows, and nothing else, as the
 * statements that set them. Applied by a superuser (only a superuser may change who executes the functions of
 * pg_catalog), in the database the dialect was read from, with the search_path its statements use.
 */
import { BINARY_OPERATORS } from '../check/names.js';
import type { Dialect } from '../types.js';
import { identifier, literal } from './catalog.js';
import { DialectArgumentError } from './errors.js';
import { assertDialect } from './validate.js';
import { invokerViewReadsQuery } from './views.js';

/**
 * Operators a statement of a dialect can write (the guard's binary operators, and LIKE and ILIKE as PostgreSQL names
 * them): their functions over the dialect's types are granted. IN, BETWEEN and IS DISTINCT FROM are made of these.
 */
const DIALECT_OPERATORS = [...BINARY_OPERATORS, '~~', '!~~', '~~*', '!~~*'];

/**
 * The types the runner's own SQL compares, casts and adds (wrapper-sql.ts: the written-row count over pg_class, the
 * byte measure, the settings check; types-catalog.ts; the dialect verification): their operators and casts are
 * granted like the dialect's.
 */
const RUNNER_TYPES = [
  'oid',
  'name',
  '"char"',
  'smallint',
  'integer',
  'bigint',
  'numeric',
  'text',
  'boolean',
  'unknown',
];

/**
 * Functions the runner calls by name (wrapper-sql.ts, verify.ts via catalog.ts, the pg adapter's cancel, and the
 * CHECK constraints' text that column-widths.ts reads for the lean path).
 */
const RUNNER_FUNCTIONS = [
  'pg_catalog.current_setting(text)',
  'pg_catalog.split_part(text, text, integer)',
  'pg_catalog.pg_stat_get_xact_tuples_inserted(oid)',
  'pg_catalog.pg_stat_get_xact_tuples_updated(oid)',
  'pg_catalog.pg_stat_get_xact_tuples_deleted(oid)',
  'pg_catalog.sum(bigint)',
  'pg_catalog.sum(integer)',
  'pg_catalog.count()',
  'pg_catalog.octet_length(text)',
  'pg_catalog.like_escape(text, text)',
  'pg_catalog.to_regclass(text)',
  'pg_catalog.has_column_privilege(name, oid, smallint, text)',
  'pg_catalog.has_table_privilege(name, oid, text)',
  'pg_catalog.pg_cancel_backend(integer)',
  'pg_catalog.pg_get_expr(pg_node_tree, oid)',
  // The views' check of verifyDialect (views.ts): security_invoker in reloptions, ownership of the tables.
  'pg_catalog.pg_options_to_table(text[])',
  'pg_catalog.pg_has_role(oid, oid, text)',
];

const array = (items: readonly string[], type: string): string =>
  `ARRAY[${items.map(literal).join(', ')}]::${type}[]`;

/** A dollar-quote tag that the body does not contain. */
function dollarQuoted(body: string): string {
  let tag = '$grants$';
  for (let i = 0; body.includes(tag); i++) tag = `$grants${i}$`;
  return `${tag}\n${body}\n${tag}`;
}

/**
 * The REVOKE and GRANT statements that give `role` exactly the dialect:
 * - the schemas of the dialect's relations: USAGE, no CREATE; every table and sequence there revoked from the role
 *   and from PUBLIC, and no temporary tables in the database (one could shadow a relation's name);
 * - each relation: SELECT, INSERT and UPDATE on its columns (column grants: a column added later stays unreadable,
 *   `*` over it fails rather than returning it), DELETE on the table, as the dialect allows; USAGE on the sequences
 *   behind its serial columns;
 * - EXECUTE revoked from PUBLIC on every function of pg_catalog, information_schema and those schemas, kept by the
 *   relations' owners, and granted to the role only on: the dialect's functions, the functions behind the
 *   dialect's operators and casts (and the input/output and index support functions of its types: the types of
 *   castTypes and of the relations' columns), what the relations' defaults, checks, policies and views call, and
 *   what the guard's runner itself needs.
 * The two catalog-derived parts are DO blocks (PostgreSQL resolves the types and functions when they run). Other
 * roles of the database lose PUBLIC's EXECUTE on built-in functions: grant them what they need.
 */
export function grantStatements(dialect: Dialect, role: string): string[] {
  assertDialect(dialect);
  if (typeof role !== 'string' || role === '')
    throw new DialectArgumentError('grantStatements: role must be a role name');
  const grantee = identifier(role);
  const entries = Object.entries(dialect.relations);
  const names = entries.map(([name]) => name);
  const tables = names.map(identifier).join(', ');
  const statements: string[] = [];

  // Scope first: the schema-wide revokes would undo grants made before them.
  statements.push(
    `DO ${dollarQuoted(`DECLARE
  grantee name := ${literal(role)};
  relations regclass[] := ARRAY(SELECT pg_catalog.to_regclass(n) FROM pg_catalog.unnest(${array(names, 'text')}) AS n);
  s name;
  o name;
BEGIN
  IF pg_catalog.array_position(relations, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'a relation of the dialect does not exist on the search_path: %', ${array(names, 'text')};
  END IF;
  FOR s IN SELECT DISTINCT n.nspname FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
           WHERE c.oid = ANY (relations) LOOP
    EXECUTE pg_catalog.format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM PUBLIC, %I', s, grantee);
    EXECUTE pg_catalog.format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM PUBLIC, %I', s, grantee);
    EXECUTE pg_catalog.format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC, %I', s, grantee);
    EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO %I', s, grantee);
  END LOOP;
  EXECUTE pg_catalog.format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, %I', pg_catalog.current_database(), grantee);
  FOR o IN SELECT DISTINCT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class AS c
           WHERE c.oid = ANY (relations) AND pg_catalog.pg_get_userbyid(c.relowner) <> grantee LOOP
    EXECUTE pg_catalog.format('GRANT TEMPORARY ON DATABASE %I TO %I', pg_catalog.current_database(), o);
  END LOOP;
END`)}`,
  );

  statements.push(`REVOKE ALL ON TABLE ${tables} FROM PUBLIC, ${grantee}`);
  for (const [name, relation] of entries) {
    const columns = relation.columns.map(identifier).join(', ');
    const table = identifier(name);
    for (const operation of ['select', 'insert', 'update'] as const) {
      if (relation.operations.includes(operation)) {
        statements.push(`GRANT ${operation.toUpperCase()} (${columns}) ON TABLE ${table} TO ${grantee}`);
      }
    }
    if (relation.operations.includes('delete'))
      statements.push(`GRANT DELETE ON TABLE ${table} TO ${grantee}`);
  }

  statements.push(
    `DO ${dollarQuoted(`DECLARE
  grantee name := ${literal(role)};
  relations regclass[] := ARRAY(SELECT pg_catalog.to_regclass(n) FROM pg_catalog.unnest(${array(names, 'text')}) AS n);
  cast_types oid[] := ARRAY(SELECT pg_catalog.to_regtype(t)::oid FROM pg_catalog.unnest(${array(dialect.castTypes, 'text')}) AS t);
  column_types oid[];
  allowed oid[];
  s name;
  o name;
  fn regprocedure;
  beneath record;
BEGIN
  IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    RAISE EXCEPTION 'only a superuser can change who executes the functions of pg_catalog'
      USING HINT = 'Apply the statements of grantStatements as a superuser.';
  END IF;
  IF pg_catalog.array_position(cast_types, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'a cast type of the dialect is not a type: %', ${array(dialect.castTypes, 'text')};
  END IF;
  -- The columns' types, the cast types and the runner's own, and every type PostgreSQL may take them as when it picks
  -- an operator, a sort or a hash (its IsBinaryCoercible): a domain's base type, anyenum for an enum, anyarray,
  -- anyrange and anymultirange, and the input type of a default btree or hash operator class that a binary-coercible
  -- cast reaches (varchar sorts with text's). Their operators, casts, I/O and support functions are granted below.
  column_types := ARRAY(SELECT DISTINCT a.atttypid FROM pg_catalog.pg_attribute AS a
                        WHERE a.attrelid = ANY (relations) AND a.attnum > 0 AND NOT a.attisdropped);
  allowed := ARRAY(
    WITH RECURSIVE closure(t) AS (
      SELECT x FROM pg_catalog.unnest(cast_types || column_types || ${array(RUNNER_TYPES, 'regtype')}::oid[]) AS x
      UNION
      SELECT y.t FROM closure AS c JOIN pg_catalog.pg_type AS ty ON ty.oid = c.t
      CROSS JOIN LATERAL (
        SELECT ty.typbasetype WHERE ty.typtype = 'd'
        UNION ALL SELECT 'anyenum'::regtype::oid WHERE ty.typtype = 'e'
        UNION ALL SELECT 'anyrange'::regtype::oid WHERE ty.typtype = 'r'
        UNION ALL SELECT 'anymultirange'::regtype::oid WHERE ty.typtype = 'm'
        UNION ALL SELECT 'anyarray'::regtype::oid WHERE ty.typsubscript = 'pg_catalog.array_subscript_handler'::regproc
        UNION ALL
        SELECT k.casttarget FROM pg_catalog.pg_cast AS k
        WHERE k.castsource = ty.oid AND k.castmethod = 'b'
          AND EXISTS (SELECT FROM pg_catalog.pg_opclass AS oc JOIN pg_catalog.pg_am AS am ON am.oid = oc.opcmethod
                      WHERE oc.opcintype = k.casttarget AND oc.opcdefault AND am.amname IN ('btree', 'hash'))
      ) AS y(t)
    )
    SELECT DISTINCT t FROM closure);

  REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, information_schema FROM PUBLIC;
  EXECUTE pg_catalog.format('REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, information_schema FROM %I', grantee);
  FOR s IN SELECT DISTINCT n.nspname FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
           WHERE c.oid = ANY (relations) LOOP
    EXECUTE pg_catalog.format('REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA %I FROM PUBLIC, %I', s, grantee);
  END LOOP;
  -- The relations' owners keep every built-in function.
  FOR o IN SELECT DISTINCT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class AS c
           WHERE c.oid = ANY (relations) AND pg_catalog.pg_get_userbyid(c.relowner) <> grantee LOOP
    EXECUTE pg_catalog.format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, information_schema TO %I', o);
  END LOOP;

  FOR fn IN
    -- The dialect's operators over its types (|| also with a non-array value).
    SELECT o.oprcode::regprocedure FROM pg_catalog.pg_operator AS o
    WHERE o.oprname = ANY (${array(DIALECT_OPERATORS, 'name')}) AND o.oprcode <> 0
      AND (o.oprleft = 0 OR o.oprleft = ANY (allowed) OR (o.oprname = '||' AND o.oprleft = 'anynonarray'::regtype))
      AND (o.oprright = ANY (allowed) OR (o.oprname = '||' AND o.oprright = 'anynonarray'::regtype))
    UNION
    -- Casts among the types, typmod coercions included.
    SELECT c.castfunc::regprocedure FROM pg_catalog.pg_cast AS c
    WHERE c.castfunc <> 0 AND c.castsource = ANY (allowed) AND c.casttarget = ANY (allowed)
    UNION
    -- Their input and output functions (a cast without a cast function converts through them).
    SELECT f.f::regprocedure FROM pg_catalog.pg_type AS t
    CROSS JOIN LATERAL (VALUES (t.typinput), (t.typoutput), (t.typreceive), (t.typsend)) AS f(f)
    WHERE t.oid = ANY (allowed) AND f.f::oid <> 0
    UNION
    -- Hash and btree support over them (a hashed IN list checks EXECUTE on the hash function).
    SELECT ap.amproc::regprocedure FROM pg_catalog.pg_amproc AS ap
    JOIN pg_catalog.pg_opfamily AS f ON f.oid = ap.amprocfamily
    JOIN pg_catalog.pg_am AS am ON am.oid = f.opfmethod
    WHERE am.amname IN ('hash', 'btree') AND ap.amproclefttype = ANY (allowed) AND ap.amprocrighttype = ANY (allowed)
    UNION
    -- The dialect's functions, every overload over its types: built-in, or the adopter's own beside its relations.
    -- A built-in's name stays the built-in's: a same-named function of the schema (sum(text), taken where the
    -- built-in has no such overload) is not granted.
    SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
    WHERE (p.pronamespace = 'pg_catalog'::regnamespace
           OR (p.pronamespace IN (SELECT c.relnamespace FROM pg_catalog.pg_class AS c WHERE c.oid = ANY (relations))
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc AS b
                               WHERE b.pronamespace = 'pg_catalog'::regnamespace AND b.proname = p.proname)))
      AND p.proname = ANY (${array(dialect.functions, 'name')})
      AND (p.proargtypes::oid[] <@ (allowed || '"any"'::regtype::oid))
    UNION
    -- What the relations run as the caller: column defaults, CHECK constraints, row-level security policies, views.
    -- Built-in functions are pinned (pg_depend does not record them): read the stored expression trees.
    SELECT DISTINCT CASE WHEN m.ref[1] = 'opno'
                         THEN (SELECT o.oprcode FROM pg_catalog.pg_operator AS o WHERE o.oid = m.ref[2]::oid)
                         ELSE m.ref[2]::oid END::regprocedure
    FROM (
      SELECT a.adbin::text AS tree FROM pg_catalog.pg_attrdef AS a WHERE a.adrelid = ANY (relations)
      UNION ALL
      SELECT k.conbin::text FROM pg_catalog.pg_constraint AS k WHERE k.conrelid = ANY (relations) AND k.conbin IS NOT NULL
      UNION ALL
      -- The CHECK constraints of the columns' domains, and of the domains they are over.
      SELECT k.conbin::text FROM pg_catalog.pg_constraint AS k
      WHERE k.conbin IS NOT NULL AND k.contypid IN (
        WITH RECURSIVE domains(t) AS (
          SELECT a.atttypid FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_type AS ty ON ty.oid = a.atttypid
          WHERE a.attrelid = ANY (relations) AND a.attnum > 0 AND NOT a.attisdropped AND ty.typtype = 'd'
          UNION
          SELECT ty.typbasetype FROM domains AS d JOIN pg_catalog.pg_type AS ty ON ty.oid = d.t
          WHERE ty.typtype = 'd' AND ty.typbasetype <> 0
        )
        SELECT t FROM domains)
      UNION ALL
      SELECT pg_catalog.concat_ws(' ', p.polqual::text, p.polwithcheck::text) FROM pg_catalog.pg_policy AS p
      WHERE p.polrelid = ANY (relations)
      UNION ALL
      SELECT w.ev_action::text FROM pg_catalog.pg_rewrite AS w WHERE w.ev_class = ANY (relations)
    ) AS t
    CROSS JOIN LATERAL pg_catalog.regexp_matches(t.tree, ':(funcid|opfuncid|aggfnoid|opno) ([0-9]+)', 'g') AS m(ref)
    WHERE m.ref[2] <> '0'
    UNION
    -- What the guard's runner calls by name.
    SELECT f::regprocedure FROM pg_catalog.unnest(${array(RUNNER_FUNCTIONS, 'text')}) AS f
  LOOP
    EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %I', fn, grantee);
  END LOOP;

  -- The sequences behind serial columns (nextval in a default checks USAGE on the sequence).
  FOR s IN SELECT DISTINCT pg_catalog.pg_get_serial_sequence(a.attrelid::regclass::text, a.attname)
           FROM pg_catalog.pg_attribute AS a
           WHERE a.attrelid = ANY (relations) AND a.attnum > 0 AND NOT a.attisdropped
             AND pg_catalog.pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) IS NOT NULL LOOP
    EXECUTE pg_catalog.format('GRANT USAGE ON SEQUENCE %s TO %I', s, grantee);
  END LOOP;

  -- What the security_invoker views of the dialect read underneath, read with the role's own rights: column SELECT
  -- on those columns (the relations of the dialect keep the dialect's grants), and USAGE on their schemas.
  FOR s IN SELECT DISTINCT v.schema FROM (${invokerViewReadsQuery(array(names, 'text'))}) AS v LOOP
    EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO %I', s, grantee);
  END LOOP;
  FOR beneath IN SELECT v.schema, v.relation, pg_catalog.string_agg(pg_catalog.quote_ident(v.column), ', ' ORDER BY v.position) AS columns
           FROM (${invokerViewReadsQuery(array(names, 'text'))}) AS v GROUP BY v.schema, v.relation LOOP
    EXECUTE pg_catalog.format('REVOKE ALL ON TABLE %I.%I FROM %I', beneath.schema, beneath.relation, grantee);
    EXECUTE pg_catalog.format('GRANT SELECT (%s) ON TABLE %I.%I TO %I', beneath.columns, beneath.schema, beneath.relation, grantee);
  END LOOP;
END`)}`,
  );
  return statements;
}
