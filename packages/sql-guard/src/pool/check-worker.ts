/**
 * A worker thread of the check pool: its own libpg-query instance and checker for the guard's dialect and
 * limits, answering one check at a time. Started by CheckPool (check-pool.ts).
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { loadModule } from 'libpg-query';
import { createChecker } from '../check/check.js';
import { shapeOf } from '../run/statement-shape.js';
import type { Dialect, Limits } from '../types.js';
import type { PoolRequest, PoolResponse } from './protocol.js';

if (!parentPort)
  throw new Error('check-worker must run in a worker thread (it is started by the check pool)');
const port: MessagePort = parentPort;
const { dialect, limits } = workerData as { dialect: Dialect; limits: Limits };

// No top-level await: the script is also built as CommonJS.
loadModule().then(
  () => {
    const check = createChecker(dialect, limits);
    port.on('message', (request: PoolRequest) => {
      const result = check(request.sql, { mode: request.mode });
      // What `run` would otherwise parse again on the main thread (see run/statement-shape.ts).
      const shapes = result.ok ? result.statements.map((s) => shapeOf(s.sql)) : undefined;
      port.postMessage({ id: request.id, result, ...(shapes ? { shapes } : {}) } satisfies PoolResponse);
    });
    port.postMessage({ ready: true } satisfies PoolResponse);
  },
  (error: unknown) => port.postMessage({ fatal: String(error) } satisfies PoolResponse),
);
