/**
 * The script of the check pool's worker threads (check-pool.ts): its own libpg-query instance and checker for the
 * guard's dialect and limits; the pool calls the default export with each check.
 */
import { workerData } from 'node:worker_threads';
import { loadModule } from 'libpg-query';
import { createChecker } from '../check/check.js';
import { shapeOf } from '../run/statement-shape.js';
import type { Dialect, Limits } from '../types.js';
import type { PoolRequest, PoolVerdict } from './protocol.js';

const { dialect, limits } = workerData as { dialect: Dialect; limits: Limits };
// No top-level await: the script is also built as CommonJS. A parser that does not load fails each check (the
// pool answers it as not judged).
const checker = loadModule().then(() => createChecker(dialect, limits));

export default async function check(request: PoolRequest): Promise<PoolVerdict> {
  const result = (await checker)(request.sql, { mode: request.mode });
  // What `run` would otherwise parse again on the main thread (see run/statement-shape.ts).
  return result.ok ? { result, shapes: result.statements.map((s) => shapeOf(s.sql)) } : { result };
}
