// One fuzzing run in a worker thread, so that the main thread can watch for hangs.
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { createGuard, type Mode } from '../src/index.js';
import { input, mode } from './arbitraries.js';
import { Oracle } from './oracle.js';

interface Job {
  count: number;
  seed: number;
}

const job = workerData as Job;
const guard = await createGuard();
const oracle = new Oracle(guard.dialect, guard.limits.maxExpandedNodes);
const failures: { sql: string; mode: Mode; problems: string[] }[] = [];
const codes = new Map<string, number>();
const perCallUs: number[] = [];
let maxMs = 0;
let maxInput = '';
let maxMode: Mode = 'query';
let accepted = 0;
let guardFallbacks = 0;
let done = 0;
let totalMs = 0;
const started = performance.now();

fc.assert(
  fc.property(input, mode, (sql, m) => {
    let problems: string[];
    const t0 = performance.now();
    try {
      const result = guard.check(sql, { mode: m });
      const ms = performance.now() - t0;
      totalMs += ms;
      if (ms > maxMs) {
        maxMs = ms;
        maxInput = sql;
        maxMode = m;
      }
      if (done % 50 === 0) perCallUs.push(ms * 1000);
      const code = result.ok ? 'accepted' : result.error.code;
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (result.ok) accepted++;
      else if (result.error.message.startsWith('The guard could not judge')) guardFallbacks++;
      problems = oracle.judge(sql, m, result);
    } catch (error) {
      problems = [`threw: ${String(error).slice(0, 200)}`];
    }
    if (problems.length && failures.length < 50)
      failures.push({ sql: sql.slice(0, 2000), mode: m, problems });
    done++;
    if (done % 2000 === 0) parentPort!.postMessage({ type: 'progress', done });
    return true;
  }),
  { numRuns: job.count, seed: job.seed },
);

perCallUs.sort((a, b) => a - b);
// The slowest call again, five times: tells a slow input from a pause of the (shared) machine.
const retimes = Array.from({ length: 5 }, () => {
  const t0 = performance.now();
  guard.check(maxInput, { mode: maxMode });
  return performance.now() - t0;
}).sort((a, b) => a - b);
const q = (p: number) =>
  Math.round(perCallUs[Math.min(perCallUs.length - 1, Math.floor(p * perCallUs.length))] ?? 0);
parentPort!.postMessage({
  type: 'done',
  report: {
    inputs: done,
    seconds: (performance.now() - started) / 1000,
    checkSeconds: totalMs / 1000,
    accepted,
    guardFallbacks,
    codes: Object.fromEntries([...codes.entries()].sort((a, b) => b[1] - a[1])),
    perCallUs: { p50: q(0.5), p99: q(0.99), p999: q(0.999) },
    maxMs: Math.round(maxMs * 100) / 100,
    maxInputRetimedMs: Math.round(retimes[2]! * 100) / 100,
    maxInput: maxInput.length > 200 ? `${maxInput.slice(0, 120)}… (${maxInput.length} characters)` : maxInput,
    acceptedNodeTypes: Object.fromEntries(
      [...oracle.acceptedNodeTypes.entries()].sort((a, b) => b[1] - a[1]),
    ),
    failures,
  },
});
