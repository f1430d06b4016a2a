import { readFileSync, writeFileSync } from 'node:fs';
import type { Client } from 'pg';

/**
 * What planning one statement costs its PostgreSQL backend: the time `EXPLAIN` takes (planning only, nothing runs)
 * and the growth of the backend's peak resident memory. The peak is Linux's VmHWM, reset before each statement
 * through /proc/<pid>/clear_refs ("5"), which needs the rights of the server's user or root (CI runs as root); where
 * it cannot be reset or read, `peakGrowthBytes` is undefined and only the time is known.
 */
export interface PlanCost {
  ms: number;
  peakGrowthBytes: number | undefined;
  /** PostgreSQL refused the statement while planning (an overflow, a type error): its message. */
  error?: string;
}

export async function backendPid(client: Client): Promise<number> {
  const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return r.rows[0]!.pid;
}

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    const kb = line ? Number.parseInt(line.slice(field.length + 1), 10) : Number.NaN;
    return Number.isFinite(kb) ? kb * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Plans `sql` on `client` (whose backend is `pid`) with EXPLAIN under `timeoutMs`; never runs it. */
export async function planCost(
  client: Client,
  pid: number,
  sql: string,
  timeoutMs = 60_000,
): Promise<PlanCost> {
  await client.query(`SET statement_timeout = ${Math.round(timeoutMs)}`);
  const reset = resetPeak(pid);
  const rssBefore = status(pid, 'VmRSS');
  const started = performance.now();
  let error: string | undefined;
  try {
    await client.query(`EXPLAIN (COSTS OFF) ${sql}`);
  } catch (e) {
    error = (e as Error).message;
  }
  const ms = performance.now() - started;
  const peak = status(pid, 'VmHWM');
  const peakGrowthBytes =
    reset && peak !== undefined && rssBefore !== undefined ? Math.max(0, peak - rssBefore) : undefined;
  return error === undefined ? { ms, peakGrowthBytes } : { ms, peakGrowthBytes, error };
}
