// Generated SQL for the fuzzer: statements in and around the dialect (allowed and forbidden relations,
// functions, casts, clauses, lexical forms), mutations of them, and arbitrary text.
import fc from 'fast-check';
import { expenseDialect } from '../src/dialect/expense.js';
import { EXPANSION_FORMS, expansionAttack } from '../test/check/expansion-attacks.js';

/** The dialect's relations (what it allows), in its order. */
const RELATIONS = Object.keys(expenseDialect.relations);
const FORBIDDEN_RELATIONS = [
  'pg_class',
  'pg_catalog.pg_user',
  'pg_authid',
  'information_schema.tables',
  'expense_internal.users',
  'expense_internal.api_keys',
  'public.ledger_entries',
  'pg_stat_activity',
  'users',
  'api_keys',
  'pg_temp.t',
];
const COLUMNS = [
  'amount',
  'ts',
  'account_id',
  'currency',
  'kind',
  'category',
  'note',
  'external_id',
  'event_id',
  'workspace_id',
  'rate',
  'balance',
  'x',
  'oid',
  'ctid',
  'xmin',
  'entry_id',
  'planned_value',
  'calendar_date',
  // Field notation and whole rows: t.f is f(t) when t has no column f.
  'ledger_entries.amount',
  'ledger_entries.json_agg',
  'ledger_entries.to_json',
  'j.note',
  'j.array_agg',
  'j.count',
  'j',
  'ledger_entries',
  'j.*',
];
const FUNCTIONS = ['sum', 'count', 'min', 'max', 'avg', 'coalesce'];
const FORBIDDEN_FUNCTIONS = [
  'now',
  'lower',
  'upper',
  'pg_sleep',
  'set_config',
  'current_setting',
  'pg_read_file',
  'lo_import',
  'dblink',
  'version',
  'random',
  'generate_series',
  'pg_catalog.sum',
  'public.sum',
  'string_agg',
  'array_agg',
  'row_to_json',
  'txid_current',
  'query_to_xml',
  'nextval',
];
const SPECIAL_FORMS = [
  'CURRENT_DATE',
  'CURRENT_USER',
  'SESSION_USER',
  'CURRENT_TIMESTAMP',
  'LOCALTIME',
  'GREATEST(1, 2)',
  'LEAST(amount, 0)',
  'NULLIF(amount, 0)',
  'EXTRACT(YEAR FROM ts)',
  'XMLELEMENT(NAME a)',
  "JSON_OBJECT('a' VALUE 1)",
  'GROUPING(kind)',
  "POSITION('a' IN note)",
  'SUBSTRING(note FROM 1 FOR 2)',
  "TRIM(BOTH ' ' FROM note)",
  'COLLATION FOR (note)',
  "OVERLAY(note PLACING 'x' FROM 1)",
  '$1',
  'ARRAY[1, 2]',
  'ROW(1, 2)',
];
/** The dialect's cast types, and spellings of some with a type modifier or another name. */
const TYPES = [...expenseDialect.castTypes, 'varchar(10)', 'char(3)', 'numeric(12,2)', 'int'];
const FORBIDDEN_TYPES = [
  'regclass',
  'regproc',
  'oid',
  'json',
  'jsonb',
  'xml',
  'bytea',
  'text[]',
  'int[]',
  'pg_catalog.text',
  'public.t',
  'tsvector',
  'money',
  'inet',
  'record',
  'anyelement',
];
const LITERALS = [
  "'a'",
  "'it''s'",
  '\'a -- b; /* c */ $$ "d"\'',
  '1',
  '-2.50',
  '0',
  'NULL',
  'TRUE',
  'FALSE',
  "DATE '2026-08-09'",
  "INTERVAL '1 day'",
  "TIMESTAMPTZ '2026-01-01T00:00:00Z'",
  "E'\\x41'",
  "U&'\\0041'",
  "B'101'",
  "X'1F'",
  '$$x$$',
  '$t$x$t$',
  "N'n'",
  '1e10',
  '0x1F',
];
const NOISE = [
  '-- c\n',
  '/* c */',
  '"amount"',
  'U&"a"',
  ';',
  ';;',
  "'",
  '"',
  '$$',
  '(',
  ')',
  ',',
  '::',
  ' ',
  '\n',
  '\t',
  '\u0000',
  '\u00a0',
  '\\',
  '*',
  '[',
  ']',
  'E',
  '$1',
  'FOR UPDATE',
  'INTO x',
  'ON CONFLICT DO NOTHING',
  'LATERAL',
  'ONLY',
  'TABLESAMPLE SYSTEM (1)',
  'COLLATE "C"',
];

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const relation = fc.oneof(
  { weight: 6, arbitrary: pick(RELATIONS) },
  { weight: 1, arbitrary: pick(FORBIDDEN_RELATIONS) },
);
const column = pick(COLUMNS);

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: column },
    { weight: 3, arbitrary: pick(LITERALS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          tie('e'),
          pick([
            '+',
            '-',
            '*',
            '/',
            '=',
            '<>',
            '<',
            '>=',
            'AND',
            'OR',
            '||',
            'LIKE',
            'ILIKE',
            '~',
            '@>',
            'IS DISTINCT FROM',
          ]),
          tie('e'),
        )
        .map(([a, op, b]) => `${a} ${op} ${b}`),
    },
    { weight: 2, arbitrary: fc.tuple(pick(FUNCTIONS), tie('e')).map(([f, a]) => `${f}(${a})`) },
    { weight: 1, arbitrary: fc.tuple(pick(FORBIDDEN_FUNCTIONS), tie('e')).map(([f, a]) => `${f}(${a})`) },
    { weight: 1, arbitrary: pick(SPECIAL_FORMS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          tie('e'),
          fc.oneof({ weight: 4, arbitrary: pick(TYPES) }, { weight: 1, arbitrary: pick(FORBIDDEN_TYPES) }),
          fc.boolean(),
        )
        .map(([a, t, short]) => (short ? `${a}::${t}` : `CAST(${a} AS ${t})`)),
    },
    { weight: 1, arbitrary: tie('e').map((a) => `(${a})`) },
    {
      weight: 1,
      arbitrary: fc.tuple(tie('e'), tie('e')).map(([a, b]) => `CASE WHEN ${a} THEN ${b} ELSE NULL END`),
    },
    { weight: 1, arbitrary: fc.tuple(column, relation).map(([c, r]) => `(SELECT ${c} FROM ${r} LIMIT 1)`) },
    { weight: 1, arbitrary: fc.tuple(column, relation).map(([c, r]) => `${c} IN (SELECT ${c} FROM ${r})`) },
    { weight: 1, arbitrary: fc.tuple(relation).map(([r]) => `EXISTS (SELECT 1 FROM ${r})`) },
    { weight: 1, arbitrary: fc.tuple(tie('e')).map(([a]) => `${a} IS NULL`) },
    {
      weight: 1,
      arbitrary: fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `${a} BETWEEN ${b} AND ${c}`),
    },
  ),
})).e;

const select: fc.Arbitrary<string> = fc
  .record({
    distinct: fc.boolean(),
    cols: fc.array(
      fc.oneof(
        expr,
        fc.constant('*'),
        expr.map((e) => `${e} AS v`),
      ),
      { minLength: 1, maxLength: 4 },
    ),
    from: fc.array(relation, { minLength: 0, maxLength: 2 }),
    join: fc.option(fc.tuple(relation, expr)),
    where: fc.option(expr),
    group: fc.option(column),
    having: fc.option(expr),
    order: fc.option(fc.tuple(column, pick(['ASC', 'DESC', 'NULLS FIRST', '']))),
    limit: fc.option(fc.integer({ min: 0, max: 1000 })),
    tail: fc.option(
      pick([
        'FOR UPDATE',
        'FOR SHARE',
        'FOR NO KEY UPDATE',
        'FOR KEY SHARE',
        'INTO t',
        'OFFSET 5',
        'FETCH FIRST 3 ROWS ONLY',
      ]),
    ),
    setop: fc.option(fc.tuple(pick(['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT']), relation)),
  })
  .map((s) => {
    let q = `SELECT ${s.distinct ? 'DISTINCT ' : ''}${s.cols.join(', ')}`;
    if (s.from.length) q += ` FROM ${s.from.join(', ')}`;
    if (s.join && s.from.length) q += ` JOIN ${s.join[0]} j ON ${s.join[1]}`;
    if (s.where) q += ` WHERE ${s.where}`;
    if (s.group) q += ` GROUP BY ${s.group}`;
    if (s.having && s.group) q += ` HAVING ${s.having}`;
    if (s.setop) q += ` ${s.setop[0]} SELECT * FROM ${s.setop[1]}`;
    if (s.order) q += ` ORDER BY ${s.order[0]} ${s.order[1]}`;
    if (s.limit !== null) q += ` LIMIT ${s.limit}`;
    if (s.tail) q += ` ${s.tail}`;
    return q;
  });

const write: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      relation,
      fc.array(column, { minLength: 1, maxLength: 3 }),
      fc.array(expr, { minLength: 1, maxLength: 3 }),
      fc.option(
        pick([
          'ON CONFLICT DO NOTHING',
          'ON CONFLICT (external_id) DO UPDATE SET note = 1',
          'RETURNING *',
          'RETURNING amount',
        ]),
      ),
    )
    .map(
      ([r, cs, vs, tail]) =>
        `INSERT INTO ${r} (${cs.join(', ')}) VALUES (${vs.join(', ')})${tail ? ` ${tail}` : ''}`,
    ),
  fc.tuple(relation, select).map(([r, s]) => `INSERT INTO ${r} ${s}`),
  fc
    .tuple(relation, column, expr, fc.option(expr), fc.option(relation), fc.boolean())
    .map(
      ([r, c, v, w, from, ret]) =>
        `UPDATE ${r} SET ${c} = ${v}${from ? ` FROM ${from}` : ''}${w ? ` WHERE ${w}` : ''}${ret ? ' RETURNING *' : ''}`,
    ),
  fc
    .tuple(relation, fc.option(expr), fc.option(relation), fc.boolean())
    .map(
      ([r, w, using, ret]) =>
        `DELETE FROM ${r}${using ? ` USING ${using}` : ''}${w ? ` WHERE ${w}` : ''}${ret ? ' RETURNING *' : ''}`,
    ),
);

const withForm: fc.Arbitrary<string> = fc
  .tuple(
    pick(['x', 'ledger_entries', 'pg_class', 'y']),
    fc.oneof(select, write),
    fc.oneof(select, write),
    fc.boolean(),
  )
  .map(
    ([name, body, main, rec]) =>
      `WITH ${rec ? 'RECURSIVE ' : ''}${name} AS (${body}) ${main.replace(/FROM (\w+)/, `FROM ${name}`)}`,
  );

const otherStatements = pick([
  'CREATE TABLE t (a int)',
  'DROP TABLE ledger_entries',
  'BEGIN',
  'COMMIT',
  'SET ROLE postgres',
  "SET LOCAL expense.workspace_id = 'x'",
  'RESET ALL',
  "COPY ledger_entries TO '/tmp/x'",
  'EXPLAIN SELECT 1',
  'LOCK ledger_entries',
  'DO $$ BEGIN END $$',
  'CALL p()',
  'MERGE INTO ledger_entries USING budget_lines ON true WHEN MATCHED THEN DELETE',
  'DECLARE c CURSOR FOR SELECT 1',
  'LISTEN x',
  "NOTIFY x, 'y'",
  'VACUUM',
  'GRANT ALL ON ledger_entries TO PUBLIC',
  'PREPARE p AS SELECT 1',
  'EXECUTE p',
  'TABLE ledger_entries',
  'VALUES (1)',
  'SHOW search_path',
  'ALTER TABLE ledger_entries DISABLE ROW LEVEL SECURITY',
  'TRUNCATE ledger_entries',
  'SELECT 1; SELECT 2',
]);

export const statement: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: select },
  { weight: 4, arbitrary: write },
  { weight: 2, arbitrary: withForm },
  { weight: 1, arbitrary: otherStatements },
);

const script = fc.array(statement, { minLength: 1, maxLength: 4 }).map((xs) => xs.join('; '));

/** Random edits of a statement with SQL-significant pieces. */
const mutated = fc
  .tuple(
    statement,
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.oneof(pick(NOISE), fc.string({ maxLength: 3 }))), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([s, edits]) => {
    let out = s;
    for (const [at, del, ins] of edits) {
      const i = at % (out.length + 1);
      out = out.slice(0, i) + ins + out.slice(i + del);
    }
    return out;
  });

const nested = fc
  .tuple(
    fc.integer({ min: 10, max: 3000 }),
    pick(['(', '((', 'SELECT (', 'ARRAY[', '- ', 'NOT ', '(SELECT ']),
  )
  .map(([n, open]) => `SELECT ${open.repeat(n)}1${')'.repeat(n)}`);

const arbitraryText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc
    .array(pick([...NOISE, 'SELECT', 'FROM', 'WHERE', 'ledger_entries', 'amount', '1', "'x'", ' ']), {
      maxLength: 30,
    })
    .map((xs) => xs.join(' ')),
);

/** The expansion attacks (test/check/expansion-attacks.ts), 1 to 24 levels deep, alone or after a statement. */
const expansion = fc
  .tuple(fc.constantFrom(...EXPANSION_FORMS), fc.integer({ min: 1, max: 24 }), fc.option(statement))
  .map(([form, levels, before]) => `${before ? `${before}; ` : ''}${expansionAttack(form, levels)}`);

const huge = fc.constantFrom(
  `SELECT ${'1+'.repeat(50_000)}1`,
  `SELECT '${'a'.repeat(99_980)}'`,
  'x'.repeat(100_001),
  Array.from({ length: 101 }, () => 'SELECT 1').join(';'),
);

export const mode = fc.constantFrom('query' as const, 'execute' as const, 'script' as const);

export const input: fc.Arbitrary<string> = fc.oneof(
  { weight: 40, arbitrary: statement },
  { weight: 12, arbitrary: script },
  { weight: 24, arbitrary: mutated },
  { weight: 16, arbitrary: arbitraryText },
  { weight: 4, arbitrary: expansion },
  // Deep nesting (up to 3,000 levels) in one input of a hundred, the near-limit texts (100,000 characters) rarer.
  { weight: 1, arbitrary: fc.oneof({ weight: 200, arbitrary: nested }, { weight: 1, arbitrary: huge }) },
);
