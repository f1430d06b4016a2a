// `pnpm fuzz` (part 1): fast-check over check() for N generated inputs (default 1,000,000), in a worker thread
// watched for hangs. Invariants: never throws, never hangs (max time per call reported; no progress for
// --hang-seconds fails the run), returns a well-formed result, accepts nothing outside the dialect (judged by an
// independent walk of the parse tree, fuzz/oracle.ts).
//   node --conditions=@expense/source --import tsx fuzz/check.fuzz.ts [count] [--seed n] [--hang-seconds 30]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = resolve(here, '..', '..', '..', 'bench-results');
const argAfter = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const seed = Number(argAfter('seed') ?? Date.now() % 2 ** 31);
const hangSeconds = Number(argAfter('hang-seconds') ?? 30);

process.stderr.write(`fuzz check: ${count} inputs, seed ${seed}\n`);
const started = performance.now();
// Node 20 does not apply --import loaders to a worker's .ts entry: register tsx inside the worker first.
const workerUrl = pathToFileURL(join(here, 'worker.ts')).href;
const worker = new Worker(
  `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); });`,
  { eval: true, workerData: { count, seed }, execArgv: ['--conditions=@expense/source'] },
);
let lastProgress = performance.now();
let done = 0;
const report = await new Promise<Record<string, unknown>>((resolvePromise, reject) => {
  const watchdog = setInterval(() => {
    if (performance.now() - lastProgress > hangSeconds * 1000) {
      clearInterval(watchdog);
      void worker.terminate();
      resolvePromise({
        hang: {
          afterInputs: done,
          seed,
          note: `no progress for ${hangSeconds} s: replay with --seed ${seed}`,
        },
      });
    }
  }, 1000);
  worker.on('message', (m: { type: string; done?: number; report?: Record<string, unknown> }) => {
    lastProgress = performance.now();
    if (m.type === 'progress') {
      done = m.done!;
      if (done % 100_000 === 0)
        process.stderr.write(
          `  ${done} inputs, ${Math.round(done / ((performance.now() - started) / 1000))}/s\n`,
        );
    } else if (m.type === 'done') {
      clearInterval(watchdog);
      resolvePromise(m.report!);
    }
  });
  worker.on('error', (e) => {
    clearInterval(watchdog);
    reject(e);
  });
});
await worker.terminate();
const seconds = (performance.now() - started) / 1000;
const failures = (report.failures as unknown[] | undefined) ?? [];
const ok = !report.hang && failures.length === 0 && report.inputs === count;
const result = {
  machine: {
    nproc: cpus().length,
    cpu: cpus()[0]?.model,
    node: process.version,
    date: new Date().toISOString(),
  },
  command: `pnpm fuzz ${count} (fuzz/check.fuzz.ts --seed ${seed})`,
  seed,
  requested: count,
  wallSeconds: Math.round(seconds * 10) / 10,
  inputsPerSecond: Math.round(((report.inputs as number) ?? done) / seconds),
  ...report,
  ok,
};
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'fuzz-check.json'), `${JSON.stringify(result, null, 2)}\n`);
process.stderr.write(
  `fuzz check: ${result.inputsPerSecond} inputs/s, accepted ${report.accepted}, max ${report.maxMs} ms per call, ` +
    `${failures.length} failures${report.hang ? ', HANG' : ''}: ${ok ? 'ok' : 'FAILED'}\n`,
);
for (const f of failures.slice(0, 10)) process.stderr.write(`  ${JSON.stringify(f)}\n`);
process.exit(ok ? 0 : 1);
