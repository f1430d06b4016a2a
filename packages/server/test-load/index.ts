// `pnpm test:load`: the load suite, then the isolation property, against PostgreSQL on 127.0.0.1.
//   node --conditions=@expense/source --import tsx test-load/index.ts [--duration 60] [--connections 200]
//        [--keys 40] [--users 5] [--runs 40] [--steps 30] [--seed n] [--only load|isolation|fairness]
//        [--fairness-duration 30] [--fairness-deadline 8000] [--fairness-engines pglite,postgres]
//        [--fairness-workloads reads,writes] [--only attack] [--attack-duration 20]
//        [--attack-keys 17] [--attack-engines postgres,postgres+redis,pglite] [--attack-mcp on|off]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineInfo } from '../bench/lib/machine.js';
import { RESULTS_DIR } from '../bench/lib/paths.js';
import { arg, log, writeResult } from '../bench/lib/results.js';
import { writeReport } from '../bench/lib/write-report.js';
import { attackOptionsFromArgs, logAttack, runAttack } from './attack.js';
import { fairnessOptionsFromArgs, logFairness, runFairness } from './fairness.js';
import { isolationOptionsFromArgs, logIsolation, runIsolation } from './isolation.js';
import { loadOptionsFromArgs, runLoad } from './load.js';

const only = arg('only', '');
function readPrevious():
  | { load?: unknown; isolation?: unknown; fairness?: unknown; attack?: unknown }
  | undefined {
  const file = join(RESULTS_DIR, 'load.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
const startedAt = new Date().toISOString();
const load = only === '' || only === 'load' ? await runLoad(loadOptionsFromArgs()) : undefined;
if (load) {
  log(
    `load: ${load.requests} requests (${load.reqPerSec}/s), statuses ${JSON.stringify(load.statuses)}, ` +
      `admitted per key ${load.limits.admittedPerKeyMin}..${load.limits.admittedPerKeyMax}, ` +
      `windows ${load.limits.fullWindows}/${load.limits.windows} full, writes ${load.writes.stored}/${load.writes.acknowledged}, ` +
      `RSS ${load.memory.startMiB}→${load.memory.maxMiB} MiB (drift ${load.memory.driftMiB}): ` +
      `${load.failures.length ? `FAILED ${load.failures.join('; ')}` : 'ok'}`,
  );
}
const isolation =
  only === '' || only === 'isolation' ? await runIsolation(isolationOptionsFromArgs()) : undefined;
if (isolation) logIsolation(isolation);
const fairness =
  only === '' || only === 'fairness' ? await runFairness(fairnessOptionsFromArgs()) : undefined;
if (fairness) logFairness(fairness);
const attack = only === '' || only === 'attack' ? await runAttack(attackOptionsFromArgs()) : undefined;
if (attack) logAttack(attack);
const failures = [
  ...(load?.failures ?? []),
  ...(isolation?.failures ?? []),
  ...(fairness?.failures ?? []),
  ...(attack?.failures ?? []),
];
// A run of one part keeps the other part's last results.
const previous = readPrevious();
log(
  `wrote ${writeResult('load', {
    machine: await machineInfo(),
    startedAt,
    load: load ?? previous?.load,
    isolation: isolation ?? previous?.isolation,
    fairness: fairness ?? previous?.fairness,
    attack: attack ?? previous?.attack,
    ok: failures.length === 0,
  })}`,
);
writeReport();
process.exit(failures.length ? 1 : 0);
