// `pnpm test:faults`: connection kills, a PostgreSQL restart under load, SIGKILL of the embedded server during
// writes, and the deadline on both engines. Bounded; leaves PostgreSQL running whatever happens.
//   node --conditions=@expense/source --import tsx test-faults/index.ts [--only kill,restart,sigkill,deadline]
//        [--restart-seconds 12] [--cycles 3] [--deadline-ms 3000]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineInfo } from '../bench/lib/machine.js';
import { RESULTS_DIR } from '../bench/lib/paths.js';
import { arg, log, writeResult } from '../bench/lib/results.js';
import { writeReport } from '../bench/lib/write-report.js';
import type { ScenarioReport } from './common.js';
import { deadlineScenario } from './deadline.js';
import { pgliteSigkillScenario } from './pglite-sigkill.js';
import { postgresKillScenarios } from './postgres-kill.js';
import { ensurePostgresRunning, postgresRestartScenario } from './postgres-restart.js';

const only = arg('only', 'kill,restart,sigkill,deadline').split(',');
const deadlineMs = Number(arg('deadline-ms', '3000'));
const startedAt = new Date().toISOString();
const reports: ScenarioReport[] = [];

async function step(name: string, fn: () => Promise<ScenarioReport | ScenarioReport[]>) {
  if (!only.includes(name)) return;
  const before = reports.length;
  try {
    const r = await fn();
    reports.push(...(Array.isArray(r) ? r : [r]));
  } catch (error) {
    reports.push({
      name,
      proves: '',
      ok: false,
      numbers: {},
      failures: [`crashed: ${String(error).slice(0, 500)}`],
    });
  }
  for (const r of reports.slice(before))
    log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} ${JSON.stringify(r.numbers)} ${r.failures.join('; ')}`);
}

try {
  await step('kill', postgresKillScenarios);
  await step('restart', () =>
    postgresRestartScenario({ loadSeconds: Number(arg('restart-seconds', '12')), workers: 6 }),
  );
  await step('sigkill', () => pgliteSigkillScenario({ cycles: Number(arg('cycles', '3')), writers: 4 }));
  await step('deadline', async () => [
    await deadlineScenario('postgres', deadlineMs),
    await deadlineScenario('pglite', deadlineMs),
  ]);
} finally {
  await ensurePostgresRunning();
}
const ok = reports.every((r) => r.ok);
// A run of some scenarios keeps the last results of the others (in the report, not in this run's verdict).
const file = join(RESULTS_DIR, 'faults.json');
const previous: ScenarioReport[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).scenarios : [];
const rerun = new Set(reports.map((r) => r.name));
const scenarios = [...previous.filter((r) => !rerun.has(r.name)), ...reports];
log(
  `wrote ${writeResult('faults', { machine: await machineInfo(), startedAt, deadlineMs, scenarios, ok: scenarios.every((r) => r.ok) })}`,
);
writeReport();
process.exit(ok ? 0 : 1);
