import { readdirSync, readFileSync } from 'node:fs';

// /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ), 100 per second on Linux.
const TICK_US = 10_000;

/** User + system CPU time of a process in µs, or 0 once it is gone. */
function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

export interface CpuPerRequest {
  /** CPU µs per request in the process answering the requests. */
  server: number;
  /** In every PostgreSQL process on this machine (the backends serving the run). */
  postgres: number;
  /** In the load generator (this process). */
  loadGenerator: number;
}

/**
 * Where the machine's CPU goes during one load run: call before, then `per(requests)` after. On a machine
 * whose cores are shared by the load generator, the server and PostgreSQL, throughput is bounded by the sum.
 */
export function cpuMeter(serverPid: number) {
  const start = {
    server: processCpuUs(serverPid),
    postgres: new Map(postgresPids().map((pid) => [pid, processCpuUs(pid)])),
    self: process.cpuUsage(),
  };
  return {
    per(requests: number): CpuPerRequest {
      const self = process.cpuUsage(start.self);
      // Per backend: a connection opened during the run counts from 0, one closed during it is lost.
      let pgNow = 0;
      for (const pid of postgresPids()) pgNow += processCpuUs(pid) - (start.postgres.get(pid) ?? 0);
      const per = (us: number) => Math.round(us / Math.max(requests, 1));
      return {
        server: per(processCpuUs(serverPid) - start.server),
        postgres: per(pgNow),
        loadGenerator: per(self.user + self.system),
      };
    },
  };
}
