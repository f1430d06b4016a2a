import { type FreshPostgres, freshPostgres } from '@expense/test-kit';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import type { Dialect } from '../../src/types.js';

/**
 * Generated dialects (relation and column names drawn from names of real catalog functions and plain
 * words) and generated statements over them. Each statement is built together with its own model of the
 * scopes, and a small resolver written here from PostgreSQL's rules (not from the guard's code) says
 * whether every column reference resolves. The guard must accept exactly those statements, and refuse
 * the others with column_not_allowed.
 */

const NAMES = [
  'json_agg',
  'jsonb_agg',
  'array_agg',
  'to_json',
  'to_jsonb',
  'row_to_json',
  'pg_sleep',
  'any_value',
  'bool_and',
  'num_nulls',
  'concat',
  'count',
  'sum',
  'max',
  'lower',
  'amount',
  'note',
  'a',
  'b',
  'c',
  'x',
  't',
];

interface Scope {
  /** Qualifier to columns, in FROM order. */
  items: { alias: string; columns: string[] }[];
  parent?: Scope;
}

/** The independent resolver: innermost level first; a qualifier stops at the first level that has it. */
function resolves(scope: Scope | undefined, ref: string): boolean {
  const dot = ref.indexOf('.');
  for (let s = scope; s; s = s.parent) {
    if (dot === -1) {
      if (s.items.some((i) => i.columns.includes(ref))) return true;
    } else {
      const owner = s.items.find((i) => i.alias === ref.slice(0, dot));
      if (owner) return owner.columns.includes(ref.slice(dot + 1));
    }
  }
  return false;
}

interface Generated {
  dialect: Dialect;
  sql: string;
  /** Whether every reference resolves, by the resolver above. */
  ok: boolean;
}

const name = fc.constantFrom(...NAMES);
const columnList = fc.uniqueArray(name, { minLength: 1, maxLength: 5 });
const dialectArb = fc
  .uniqueArray(fc.tuple(name, columnList), { minLength: 1, maxLength: 3, selector: ([n]) => n })
  .map((rels) => ({
    relations: Object.fromEntries(
      rels.map(([n, columns]) => [n, { operations: ['select' as const], columns }]),
    ),
    functions: [],
    castTypes: [],
  }));

/**
 * A reference: mostly one that names a column of an item in scope (bare or qualified), else any name,
 * bare or qualified by an alias in scope or by a name that is no alias.
 */
const ref = (items: { alias: string; columns: string[] }[]) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...items), fc.nat(), fc.boolean())
        .map(([it, i, bare]) => (bare ? '' : `${it.alias}.`) + it.columns[i % it.columns.length]),
    },
    { weight: 1, arbitrary: name },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...items.map((i) => i.alias), 'zz'), name)
        .map(([q, c]) => `${q}.${c}`),
    },
  );

const generated: fc.Arbitrary<Generated> = dialectArb.chain((dialect) => {
  const relNames = Object.keys(dialect.relations);
  const columnsOf = (r: string) => dialect.relations[r]!.columns;
  const fromItem = fc.oneof(
    // a relation
    fc.constantFrom(...relNames).map((r) => ({ text: r, columns: columnsOf(r), inner: [] as string[] })),
    // a subquery over a relation, its select list of columns and aliased constants
    fc
      .constantFrom(...relNames)
      .chain((r) =>
        fc.tuple(
          fc.constant(r),
          fc.array(
            fc.oneof(
              { weight: 3, arbitrary: fc.constantFrom(...columnsOf(r)) },
              { weight: 1, arbitrary: name },
              { weight: 1, arbitrary: name.map((n) => `1 AS ${n}`) },
              { weight: 1, arbitrary: fc.constant('*') },
            ),
            { minLength: 1, maxLength: 3 },
          ),
        ),
      )
      .map(([r, list]) => ({
        text: `(SELECT ${list.join(', ')} FROM ${r})`,
        columns: list.flatMap((e) => (e === '*' ? columnsOf(r) : e.startsWith('1 AS ') ? [e.slice(5)] : [e])),
        inner: list.filter((e) => e !== '*' && !e.startsWith('1 AS ')).map((e) => `${r}:${e}`),
      })),
    // a VALUES list with or without a column alias list
    fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.option(fc.uniqueArray(name, { minLength: 1, maxLength: 3 })))
      .map(([width, names]) => {
        const base = Array.from({ length: width }, (_, i) => `column${i + 1}`);
        const cols = names && names.length <= width ? [...names, ...base.slice(names.length)] : base;
        return {
          text: `(VALUES (${Array(width).fill('1').join(', ')}))`,
          columns: cols,
          inner: [] as string[],
          aliasColumns: names && names.length <= width ? names : undefined,
        };
      }),
  );
  return fc
    .record({
      items: fc.array(fc.tuple(fromItem, name), { minLength: 1, maxLength: 2 }),
      sub: fc.option(fc.tuple(fc.constantFrom(...relNames), name)),
    })
    .chain(({ items, sub }) => {
      // Distinct aliases per level (PostgreSQL refuses duplicates).
      const seen = new Set<string>();
      const level = items.filter(([, alias]) => !seen.has(alias) && seen.add(alias));
      const outer: Scope = { items: level.map(([it, alias]) => ({ alias, columns: it.columns })) };
      const inner: Scope | undefined = sub
        ? { items: [{ alias: sub[1], columns: columnsOf(sub[0]) }], parent: outer }
        : undefined;
      return fc
        .record({
          select: fc.array(ref(outer.items), { minLength: 1, maxLength: 3 }),
          where: fc.option(ref(outer.items)),
          inSub: fc.array(ref(inner ? [...inner.items, ...outer.items] : outer.items), {
            minLength: 1,
            maxLength: 2,
          }),
        })
        .map(({ select, where, inSub }) => {
          const from = level
            .map(([it, alias]) => {
              const cols = 'aliasColumns' in it && it.aliasColumns ? `(${it.aliasColumns.join(', ')})` : '';
              return `${it.text} AS ${alias}${cols}`;
            })
            .join(', ');
          let sql = `SELECT ${select.join(', ')} FROM ${from}`;
          let ok = select.every((r) => resolves(outer, r));
          // Names inside the subqueries in FROM resolve against their own relation.
          for (const [it] of level)
            for (const e of it.inner) {
              const [r, c] = e.split(':') as [string, string];
              ok &&= columnsOf(r).includes(c);
            }
          const conditions: string[] = [];
          if (where) {
            conditions.push(`${where} IS NULL`);
            ok &&= resolves(outer, where);
          }
          if (sub && inner) {
            conditions.push(
              `EXISTS (SELECT 1 FROM ${sub[0]} AS ${sub[1]} WHERE ${inSub.map((r) => `${r} IS NULL`).join(' AND ')})`,
            );
            ok &&= inSub.every((r) => resolves(inner, r));
          }
          if (conditions.length) sql += ` WHERE ${conditions.join(' AND ')}`;
          return { dialect, sql, ok };
        });
    });
});

describe('name resolution against an independent resolver', () => {
  it('accepts exactly the statements whose every reference resolves', async () => {
    const guards = new Map<string, Awaited<ReturnType<typeof createGuard>>>();
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(generated, async ({ dialect, sql, ok }) => {
        const key = JSON.stringify(dialect);
        let guard = guards.get(key);
        if (!guard) {
          guard = await createGuard({ dialect });
          guards.set(key, guard);
        }
        const result = guard.check(sql, { mode: 'query' });
        expect(result.ok ? 'accepted' : result.error.code, sql).toBe(ok ? 'accepted' : 'column_not_allowed');
        if (result.ok) accepted++;
        else refused++;
      }),
      { numRuns: 3000, seed: 20261123 },
    );
    // Not vacuous: both verdicts occur often.
    expect(accepted).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });
});

/**
 * The same statements on PostgreSQL 15, every column an integer: if PostgreSQL read any reference the
 * guard accepted as a function call or a whole row (`x.json_agg` as `json_agg(x)`), that result column
 * would not be an integer. So every accepted statement must run and return integer columns only.
 */
describe('accepted generated statements on PostgreSQL', () => {
  let database: FreshPostgres;
  let client: pg.Client;
  beforeAll(async () => {
    database = await freshPostgres({ prefix: 'sql_guard_names' });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('runs them, and PostgreSQL reads every reference as an integer column', async () => {
    const guards = new Map<string, Awaited<ReturnType<typeof createGuard>>>();
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(generated, async ({ dialect, sql }) => {
        const key = JSON.stringify(dialect);
        let guard = guards.get(key);
        if (!guard) {
          guard = await createGuard({ dialect });
          guards.set(key, guard);
        }
        if (!guard.check(sql, { mode: 'query' }).ok) return;
        await client.query('BEGIN');
        try {
          for (const [name, r] of Object.entries(dialect.relations)) {
            await client.query(`CREATE TABLE ${name} (${r.columns.map((c) => `${c} integer`).join(', ')})`);
            await client.query(`INSERT INTO ${name} VALUES (${r.columns.map(() => '1').join(', ')})`);
          }
          const result = await client.query(sql);
          expect(
            result.fields.filter((f) => f.dataTypeID !== 23).map((f) => f.name),
            sql,
          ).toEqual([]);
          ran++;
        } catch (error) {
          // Ambiguous names are PostgreSQL's own error (never a function call): the guard need not refuse them.
          if (!/is ambiguous/.test((error as Error).message))
            throw new Error(`${sql}: ${(error as Error).message}`);
        } finally {
          await client.query('ROLLBACK');
        }
      }),
      { numRuns: 600, seed: 20261124 },
    );
    expect(ran).toBeGreaterThan(50);
  }, 300_000);
});
