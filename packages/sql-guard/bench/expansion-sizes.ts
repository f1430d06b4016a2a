/**
 * The expanded size (`limits.maxExpandedNodes`) of every statement of the guard's corpora, and of the expansion
 * attacks level by level: the numbers behind the default bound (README, "Expanded size").
 *   node --conditions=@expense/source --import tsx bench/expansion-sizes.ts [--levels 20]
 */
import { defaultLimits } from '../src/limits.js';
import type { Mode } from '../src/types.js';
import { cases, resolvedExecutes, resolvedQueries } from '../test/check/corpus.js';
import { EXPANSION_FORMS, expansionAttack } from '../test/check/expansion-attacks.js';
import { corpus } from './corpus.js';
import { expandedSize } from './expanded-size.js';

const i = process.argv.indexOf('--levels');
const levels = Number(i > 0 ? process.argv[i + 1] : 20);
const legit: [string, Mode][] = [
  ...cases,
  ...corpus.map((c): [string, Mode] => [c.sql, c.mode]),
  ...resolvedQueries.map((q): [string, Mode] => [q, 'query']),
  ...resolvedExecutes.map((q): [string, Mode] => [q, 'execute']),
];
const sizes = legit
  .map(([sql, mode]) => ({ sql, mode, size: expandedSize(sql, mode, 1_000_000) as number }))
  .sort((a, b) => b.size - a.size);
const quantile = (p: number) => sizes[Math.floor((1 - p) * (sizes.length - 1))]!.size;
console.log(
  `corpora: ${sizes.length} statements; expanded size max ${sizes[0]!.size}, p90 ${quantile(0.9)}, median ${quantile(0.5)}; default bound ${defaultLimits.maxExpandedNodes}`,
);
for (const s of sizes.slice(0, 5)) console.log(`  ${s.size}\t${s.mode}\t${s.sql.slice(0, 100)}`);

console.log(`\nattacks: expanded size by level (characters at level ${levels})`);
for (const form of EXPANSION_FORMS) {
  const row: string[] = [];
  for (let level = 1; level <= levels; level++) {
    row.push(String(expandedSize(expansionAttack(form, level), 'query')));
  }
  console.log(`  ${form} (${expansionAttack(form, levels).length} chars): ${row.join(' ')}`);
}
