import type { ROUTE_PATHS } from '@expense/wire/route-paths';
import { callRoute, envelopeProblem, type HttpResponse } from '../bench/lib/http.js';

/** The SQL routes sqlRequest sends to. */
export type SqlRoute = (typeof ROUTE_PATHS)['sqlQuery' | 'sqlExecute' | 'sqlScript'];

export interface ScenarioReport {
  name: string;
  /** What this scenario proves, one sentence. */
  proves: string;
  ok: boolean;
  numbers: Record<string, number | string>;
  failures: string[];
}

export class Scenario {
  readonly numbers: Record<string, number | string> = {};
  readonly failures: string[] = [];
  constructor(
    readonly name: string,
    readonly proves: string,
  ) {}

  check(condition: boolean, failure: string): void {
    if (!condition) this.failures.push(failure);
  }

  report(): ScenarioReport {
    return {
      name: this.name,
      proves: this.proves,
      ok: this.failures.length === 0,
      numbers: this.numbers,
      failures: this.failures,
    };
  }
}

/** A SQL request; network errors become status 0 so that scenarios can count them. */
export async function sqlRequest(
  origin: string,
  key: string,
  route: SqlRoute,
  sql: string,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  try {
    return await callRoute(origin, route, { key, body: { sql }, headers, timeoutMs: 120_000 });
  } catch (error) {
    return { status: 0, headers: {}, body: undefined, text: String(error), ms: 0 };
  }
}

/** The coded-error contract: a failure is an envelope with a code; returns the code or a problem. */
export function codeOf(res: HttpResponse): string {
  if (res.status === 0) return `network: ${res.text.slice(0, 80)}`;
  const problem = envelopeProblem(res);
  if (problem) return `bad envelope: ${problem}`;
  return res.status < 300 ? 'ok' : String(res.body.error.code);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until fn returns true or the time is up; returns the milliseconds it took, or -1. */
export async function waitFor(fn: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await fn().catch(() => false)) return Math.round(performance.now() - started);
    await sleep(everyMs);
  }
  return -1;
}

/** A three-row script with one event id: present entirely or not at all. */
export function eventScript(eventId: string): string {
  const row = (n: number) =>
    `INSERT INTO ledger_entries (event_id, ts, account_id, amount, currency, kind, category, external_id) VALUES ('${eventId}', TIMESTAMPTZ '2026-05-01T09:00:00Z', 'acct-${n}', -${n}.25, 'EUR', 'spend', 'faults', '${eventId}-${n}')`;
  return [row(1), row(2), row(3)].join('; ');
}
