/**
 * Times `check` beside the bare libpg-query parse (which includes decoding the JSON tree),
 * pgsql-ast-parser and node-sql-parser, in one process over one corpus. Prints µs/statement and the
 * ratio to the bare parse; writes bench-results/check.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadModule, parseSync } from 'libpg-query';
import nodeSqlParserModule from 'node-sql-parser';
import { parse as pgsqlAstParse } from 'pgsql-ast-parser';
import { createGuard } from '../src/index.js';
import { corpus } from './corpus.js';

await loadModule();
const guard = await createGuard();
for (const { sql, mode } of corpus) {
  const r = guard.check(sql, { mode });
  if (!r.ok) throw new Error(`corpus statement rejected: ${sql}: ${r.error.message}`);
}
const nodeSqlParser = new nodeSqlParserModule.Parser();

const subjects: Record<string, (sql: string, mode: 'query' | 'execute' | 'script') => unknown> = {
  'libpg-query parseSync (bare)': (sql) => parseSync(sql),
  'sql-guard check': (sql, mode) => guard.check(sql, { mode }),
  'pgsql-ast-parser parse': (sql) => pgsqlAstParse(sql),
  'node-sql-parser astify': (sql) => nodeSqlParser.astify(sql, { database: 'PostgresQL' }),
};

function time(
  fn: (sql: string, mode: 'query' | 'execute' | 'script') => unknown,
  iterations: number,
): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    for (const { sql, mode } of corpus) {
      try {
        fn(sql, mode);
      } catch {
        // A parser that cannot read a statement still spent the time; failures are counted below.
      }
    }
  }
  return Number(process.hrtime.bigint() - start) / 1000 / (iterations * corpus.length);
}

const failures: Record<string, number> = {};
for (const [name, fn] of Object.entries(subjects)) {
  failures[name] = 0;
  for (const { sql, mode } of corpus) {
    try {
      fn(sql, mode);
    } catch {
      failures[name]! += 1;
    }
  }
}

const rounds = 25;
const results: Record<string, number[]> = {};
for (const name of Object.keys(subjects)) results[name] = [];
for (let round = 0; round < rounds; round++) {
  // Interleave subjects so that noise from other processes hits all of them alike.
  for (const [name, fn] of Object.entries(subjects)) {
    const iterations = name.startsWith('libpg') || name.startsWith('sql-guard') ? 100 : 5;
    results[name]!.push(time(fn, iterations));
  }
}
// The machine is shared: the fastest round is the least disturbed one, the median shows the spread.
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const best = (xs: number[]): number => Math.min(...xs);
const bare = results['libpg-query parseSync (bare)']!;
const rows = Object.entries(results).map(([name, xs]) => ({
  subject: name,
  'best µs/stmt': Number(best(xs).toFixed(2)),
  'median µs/stmt': Number(median(xs).toFixed(2)),
  'ratio (best)': Number((best(xs) / best(bare)).toFixed(2)),
  'ratio (median)': Number((median(xs) / median(bare)).toFixed(2)),
  unparsed: `${failures[name]}/${corpus.length}`,
}));

console.log(`corpus: ${corpus.length} statements; ${rounds} interleaved rounds; node ${process.version}`);
console.table(rows);
mkdirSync('bench-results', { recursive: true });
writeFileSync(
  'bench-results/check.json',
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, corpus: corpus.length, rows }, null, 2)}\n`,
);
