import { readFileSync } from 'node:fs';

/** The resident set size of a process in MiB (VmRSS of /proc/<pid>/status), or undefined once it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface RssSample {
  /** Seconds since the sampler started. */
  t: number;
  mib: number;
}

/** Samples a process's RSS at a fixed interval until stopped. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();

  constructor(
    private readonly pid: number,
    intervalMs = 500,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    const mib = rssMiB(this.pid);
    if (mib !== undefined) this.samples.push({ t: (performance.now() - this.started) / 1000, mib });
  }

  stop(): RssSummary {
    clearInterval(this.timer);
    this.sample();
    return summarizeRss(this.samples);
  }
}

export interface RssSummary {
  samples: RssSample[];
  startMiB: number;
  maxMiB: number;
  endMiB: number;
  /** Mean of the last quarter minus mean of the second quarter: growth once warmed up. */
  driftMiB: number;
}

export function summarizeRss(samples: RssSample[]): RssSummary {
  const values = samples.map((s) => s.mib);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const q = Math.floor(values.length / 4);
  return {
    samples,
    startMiB: round(values[0] ?? 0),
    maxMiB: round(Math.max(0, ...values)),
    endMiB: round(values.at(-1) ?? 0),
    driftMiB: round(mean(values.slice(3 * q)) - mean(values.slice(q, 2 * q))),
  };
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
