/**
 * Times `check` beside the bare libpg-query parse (which includes decoding the JSON tree), its scanner,
 * pgsql-ast-parser and node-sql-parser, in one process over one corpus; then `check` beside the bare parse and
 * the scanner over the long-text corpus (texts over 2,000 characters, long-corpus.ts). Subjects alternate within each
 * round; each round measures the CPU time the process spent (process.cpuUsage: on a shared machine it
 * leaves out the time other processes held the core) and the wall time. Prints µs/statement, median and
 * best over the rounds and the ratios to the bare parse; writes bench-results/check.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { median } from '@expense/test-kit';
import { loadModule, parseSync, scanSync } from 'libpg-query';
import nodeSqlParserModule from 'node-sql-parser';
import { parse as pgsqlAstParse } from 'pgsql-ast-parser';
import { createGuard } from '../src/index.js';
import { corpus } from './corpus.js';
import { longCorpus } from './long-corpus.js';

await loadModule();
const guard = await createGuard();
for (const { sql, mode } of [...corpus, ...longCorpus]) {
  const r = guard.check(sql, { mode });
  if (!r.ok) throw new Error(`corpus statement rejected: ${sql}: ${r.error.message}`);
}
const nodeSqlParser = new nodeSqlParserModule.Parser();

const subjects: Record<string, (sql: string, mode: 'query' | 'execute' | 'script') => unknown> = {
  'libpg-query parseSync (bare)': (sql) => parseSync(sql),
  'sql-guard check': (sql, mode) => guard.check(sql, { mode }),
  'libpg-query scanSync': (sql) => scanSync(sql),
  'pgsql-ast-parser parse': (sql) => pgsqlAstParse(sql),
  'node-sql-parser astify': (sql) => nodeSqlParser.astify(sql, { database: 'PostgresQL' }),
};

/** µs per statement: [CPU time, wall time]. */
function time(
  fn: (sql: string, mode: 'query' | 'execute' | 'script') => unknown,
  iterations: number,
  corpus: { sql: string; mode: 'query' | 'execute' | 'script' }[],
): [number, number] {
  const cpu = process.cpuUsage();
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
  const wall = Number(process.hrtime.bigint() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const n = iterations * corpus.length;
  return [(used.user + used.system) / n, wall / n];
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
const results: Record<string, { cpu: number[]; wall: number[] }> = {};
for (const name of Object.keys(subjects)) results[name] = { cpu: [], wall: [] };
for (let round = 0; round < rounds; round++) {
  // Interleave subjects so that noise from other processes hits all of them alike.
  for (const [name, fn] of Object.entries(subjects)) {
    const iterations = name.startsWith('libpg') || name.startsWith('sql-guard') ? 100 : 5;
    const [cpu, wall] = time(fn, iterations, corpus);
    results[name]!.cpu.push(cpu);
    results[name]!.wall.push(wall);
  }
}
// The machine is shared: the fastest round is the least disturbed one, the median shows the spread.
const best = (xs: number[]): number => Math.min(...xs);
const bare = results['libpg-query parseSync (bare)']!;
const round2 = (x: number) => Number(x.toFixed(2));
// CPU time first: the report (scripts/bench/report.ts) reads 'best µs/stmt' and the ratios.
const rows = Object.entries(results).map(([name, r]) => ({
  subject: name,
  'best µs/stmt': round2(best(r.cpu)),
  'median µs/stmt': round2(median(r.cpu)),
  'ratio (best)': round2(best(r.cpu) / best(bare.cpu)),
  'ratio (median)': round2(median(r.cpu) / median(bare.cpu)),
  'wall median µs/stmt': round2(median(r.wall)),
  'ratio (wall median)': round2(median(r.wall) / median(bare.wall)),
  unparsed: `${failures[name]}/${corpus.length}`,
}));

// The long texts: check beside the bare parse and the scanner only (the other parsers take seconds on them).
const longSubjects = ['libpg-query parseSync (bare)', 'sql-guard check', 'libpg-query scanSync'];
const longResults: Record<string, { cpu: number[]; wall: number[] }> = {};
for (const name of longSubjects) longResults[name] = { cpu: [], wall: [] };
for (let round = 0; round < rounds; round++) {
  for (const name of longSubjects) {
    const [cpu, wall] = time(subjects[name]!, 10, longCorpus);
    longResults[name]!.cpu.push(cpu);
    longResults[name]!.wall.push(wall);
  }
}
const longBare = longResults['libpg-query parseSync (bare)']!;
const longRows = Object.entries(longResults).map(([name, r]) => ({
  subject: name,
  'best µs/stmt': round2(best(r.cpu)),
  'median µs/stmt': round2(median(r.cpu)),
  'ratio (best)': round2(best(r.cpu) / best(longBare.cpu)),
  'ratio (median)': round2(median(r.cpu) / median(longBare.cpu)),
  'wall median µs/stmt': round2(median(r.wall)),
  'ratio (wall median)': round2(median(r.wall) / median(longBare.wall)),
}));

console.log(
  `corpus: ${corpus.length} statements; ${rounds} interleaved rounds; µs of CPU time per statement (wall time apart); node ${process.version}`,
);
console.table(rows);
console.log(
  `long-text corpus: ${longCorpus.length} texts of ${Math.min(...longCorpus.map((c) => c.sql.length))} to ${Math.max(...longCorpus.map((c) => c.sql.length))} characters; ${rounds} interleaved rounds`,
);
console.table(longRows);
mkdirSync('bench-results', { recursive: true });
writeFileSync(
  'bench-results/check.json',
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      corpus: corpus.length,
      rounds,
      rows,
      longCorpus: longCorpus.length,
      longRows,
    },
    null,
    2,
  )}\n`,
);
