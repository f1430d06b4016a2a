/**
 * Planner bombs built from what PostgreSQL folds before it checks for interrupts (docs/security.md, "Planner
 * bombs"): long literals and numerics, copied by subquery pull-up, CTE inlining, BETWEEN and IN, concatenated,
 * multiplied and matched with LIKE. Written from PostgreSQL's planner (pull-up, eval_const_expressions), not from the
 * guard's model: each family grows one of the three things that cost — the length of the constants, the copies made
 * of them, and the work of matching or multiplying two of them — and the generator draws the sizes at random around
 * the point where a statement starts to cost seconds and gigabytes, so that the guard's bound is probed from both
 * sides. `fuzz/planner.fuzz.ts` plans every accepted one on PostgreSQL; `test/run/planner-bombs.test.ts` a seeded
 * sample in CI.
 */

export const BOMB_FAMILIES = [
  'concat', // SELECT s || s AS s FROM (<previous>): the literal doubles per level
  'numeric', // SELECT x * x - x * x + x AS x FROM (<previous>): five copies of a long numeric per level
  'exponent', // the same over 1e1000-style numerics: a short text, a long value
  'like', // s LIKE p over long literals copied from a derived table, repeated
  'ilike', // the same with ILIKE
  'columns', // a derived table's constant column referenced many times
  'cte', // a CTE holding a long literal, referenced through copies
  'chain', // 'L' || 'L' || ... : each step of a left-deep chain folds a longer value
  'between', // (s || s) BETWEEN a AND b nested: the parser copies the operand
  'in', // (s || s) IN (col, col) nested
  'values', // a one-row VALUES list pulled up like a subquery
  'lateral', // LATERAL (SELECT a.s || a.s) per level
] as const;

export type BombFamily = (typeof BOMB_FAMILIES)[number];

export interface Bomb {
  family: BombFamily;
  /** The length of each long literal. */
  length: number;
  /** Levels of copies (or items of a chain, or repeats of a match). */
  depth: number;
  sql: string;
}

/** A small seeded generator (mulberry32): the same seed gives the same bombs on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The text of a statement's literal must fit maxSqlLength (100,000) with room for the rest. */
const MAX_LITERAL = 90_000;

function nest(levels: number, base: string, level: (i: number, inner: string) => string): string {
  let q = base;
  for (let i = 1; i <= levels; i++) q = level(i, q);
  return q;
}

const text = (n: number) => `'${'a'.repeat(Math.max(1, n))}'`;
const digits = (n: number) => `${'9'.repeat(Math.max(1, n - 2))}.5`;
const repeat = (n: number, item: string, sep: string) => Array.from({ length: n }, () => item).join(sep);

/** One statement of `family` with literals of `length` and `depth` levels (or repeats). */
export function bomb(family: BombFamily, length: number, depth: number): Bomb {
  const L = Math.min(MAX_LITERAL, Math.max(1, Math.round(length)));
  const d = Math.max(1, Math.round(depth));
  return { family, length: L, depth: d, sql: statement(family, L, d) };
}

function statement(family: BombFamily, L: number, d: number): string {
  switch (family) {
    case 'concat':
      return `SELECT s FROM (${nest(d, `SELECT ${text(L)} AS s`, (i, q) => `SELECT s || s AS s FROM (${q}) AS a${i}`)}) AS z`;
    case 'numeric':
      return `SELECT x FROM (${nest(d, `SELECT ${digits(Math.min(L, 60_000))} AS x`, (i, q) => `SELECT x * x - x * x + x AS x FROM (${q}) AS a${i}`)}) AS z`;
    case 'exponent':
      return `SELECT x FROM (${nest(d, `SELECT 1e${Math.min(L, 1000)} + 0.5 AS x`, (i, q) => `SELECT x * x + x AS x FROM (${q}) AS a${i}`)}) AS z`;
    case 'like':
    case 'ilike': {
      const op = family === 'like' ? 'LIKE' : 'ILIKE';
      const half = Math.max(1, Math.floor(L / 2));
      return `SELECT ${repeat(d, `t.s ${op} t.p`, ' OR ')} FROM (SELECT ${text(L)} AS s, '%${'a'.repeat(half)}b' AS p) AS t`;
    }
    case 'columns':
      return `SELECT ${repeat(Math.min(d * 8, 1600), 't.s', ', ')} FROM (SELECT ${text(L)} AS s) AS t`;
    case 'cte':
      return `WITH c AS (SELECT ${text(L)} AS s) SELECT ${repeat(d, 'c.s', ' || ')} FROM c, c AS c2`;
    case 'chain':
      return `SELECT ${repeat(Math.min(d * 8, 250), text(Math.floor(Math.min(L, 99_000 / Math.min(d * 8, 250)) - 3)), ' || ')}`;
    case 'between':
      return `SELECT ${nest(Math.min(d, 30), text(L), (_, e) => `((${e}) BETWEEN 'a' AND 'b')::text`)}`;
    case 'in':
      return `SELECT ${nest(Math.min(d, 30), text(L), (_, e) => `((${e}) IN (note, category))::text`)} FROM ledger_entries`;
    case 'values':
      return `SELECT v FROM (${nest(d, `SELECT ${text(L)} AS v`, (i, q) => `SELECT a${i}.v || a${i}.v AS v FROM (VALUES ((${q}))) AS a${i}(v)`)}) AS z`;
    case 'lateral':
      return `SELECT s FROM (${nest(d, `SELECT ${text(L)} AS s`, (i, q) => `SELECT b.s FROM (${q}) AS a${i}, LATERAL (SELECT a${i}.s || a${i}.s AS s) AS b`)}) AS z`;
  }
}

/**
 * `count` bombs drawn from `seed`: every family in turn, the literal's length log-uniform from 1 byte to 90 kB, the
 * depth from 1 to 16 levels (repeats up to 400) — the region where folding goes from microseconds to minutes.
 */
export function bombs(seed: number, count: number): Bomb[] {
  const next = random(seed);
  const out: Bomb[] = [];
  for (let i = 0; i < count; i++) {
    const family = BOMB_FAMILIES[i % BOMB_FAMILIES.length]!;
    const length = Math.exp(next() * Math.log(MAX_LITERAL));
    const repeats = family === 'like' || family === 'ilike' || family === 'cte';
    const depth = repeats ? Math.exp(next() * Math.log(400)) : 1 + next() * 15;
    out.push(bomb(family, length, depth));
  }
  return out;
}

/** The issue-35 shapes at every depth the report tried: a 90 kB literal doubled, a 30,000-digit numeric, LIKE. */
export function reportedBombs(): Bomb[] {
  const out: Bomb[] = [];
  for (let d = 1; d <= 13; d++) out.push(bomb('concat', 90_000, d));
  for (let d = 1; d <= 6; d++) out.push(bomb('numeric', 30_000, d));
  for (const n of [1, 2, 10, 50, 200]) out.push(bomb('like', 45_000, n), bomb('ilike', 45_000, n));
  return out;
}
