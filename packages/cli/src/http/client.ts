import type { Action } from '@expense/wire';
import type { Validator } from '../checks/check.js';
import { failureEnvelope, successEnvelope } from '../checks/wire.js';
import { type CliError, cliError } from '../errors.js';
import { ApiError } from './api-error.js';
import { Transport, type TransportResponse } from './transport.js';

export interface ClientOptions {
  userAgent: string;
  /** Called before waiting out a 429 (to tell the user). */
  onWait?: (seconds: number) => void;
  /** Longest single Retry-After the client waits for; longer ones fail (a daily limit, say). */
  maxWaitSeconds?: number;
  /** The time the pacing and the 429 waits are reckoned in (tests pass their own); the system's by default. */
  clock?: ClientClock;
}

export interface ClientClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const SYSTEM_CLOCK: ClientClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface CallSpec<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** Schema of `data` on success (a wire schema, or a hand-written check); omitted for 204 responses. */
  data?: Validator<T>;
  body?: unknown;
  /** A body of bytes sent as they are, with its Content-Type, instead of `body` as JSON. */
  bytes?: { data: Uint8Array; contentType: string };
  apiKey?: string;
  workspaceId?: string;
  idempotencyKey?: string;
  /** The change group the write joins (X-Change-Group, X-Change-Label): one entry of the history. */
  changeGroup?: ChangeGroup;
}

/** A change group as the client names it: a UUID it made, and a label. */
export interface ChangeGroup {
  id: string;
  label: string;
}

export interface CallResult<T> {
  status: number;
  /** `data` as validated. */
  data: T;
  /** `data` exactly as the server sent it (what --json prints). */
  raw: unknown;
  instructions: string[];
  actions: Action[];
  /** The server answered from its Idempotency-Key store and ran nothing. */
  replayed: boolean;
}

// The wire's header names (packages/wire/src/sql.ts, changes.ts), here so that no call loads the wire's schemas.
export const WORKSPACE_HEADER = 'x-workspace-id';
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const CHANGE_GROUP_HEADER = 'x-change-group';
export const CHANGE_LABEL_HEADER = 'x-change-label';
/** The longest change label the server keeps (the wire's MAX_CHANGE_LABEL), in characters. */
export const MAX_CHANGE_LABEL = 200;

/** Retry-After in seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

const MAX_429_RETRIES = 5;

/**
 * The shortest spacing between requests that the server's `RateLimit-Policy` allows (IETF draft
 * httpapi-ratelimit-headers: `"burst";q=10;w=1, "daily";q=10000;w=86400`), from its policy with the
 * smallest window; 0 when the header is absent. A sequential client that keeps this spacing never hits 429.
 */
export function pacingMs(policy: string | undefined): number {
  if (!policy) return 0;
  let best: { q: number; w: number } | undefined;
  for (const item of policy.split(',')) {
    const q = Number(/;\s*q=(\d+)/.exec(item)?.[1]);
    const w = Number(/;\s*w=(\d+)/.exec(item)?.[1]);
    if (q > 0 && w > 0 && (!best || w < best.w)) best = { q, w };
  }
  // 2% over the exact spacing absorbs timer jitter at the server's window edges.
  return best ? Math.ceil(((best.w * 1000) / best.q) * 1.02) : 0;
}

/** The CLI's HTTP client: ApiKey auth, workspace header, envelope parsing, errors as typed values, 429 waits. */
export class ApiClient {
  private readonly transport = new Transport({ connectMs: 10_000, idleMs: 60_000 });
  /** When the next request may start, from the spacing the server's rate-limit policy asks for. */
  private nextStartAt = 0;
  private readonly clock: ClientClock;
  constructor(private readonly options: ClientOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  async call<T>(spec: CallSpec<T>): Promise<CallResult<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(spec);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 429 || attempt >= MAX_429_RETRIES) throw error;
        const wait = error.retryAfterSeconds ?? 1;
        if (wait > (this.options.maxWaitSeconds ?? 120)) throw error;
        this.options.onWait?.(wait);
        await this.clock.sleep(wait * 1000);
      }
    }
  }

  private async once<T>(spec: CallSpec<T>): Promise<CallResult<T>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (spec.apiKey) headers.authorization = `ApiKey ${spec.apiKey}`;
    if (spec.workspaceId) headers[WORKSPACE_HEADER] = spec.workspaceId;
    if (spec.idempotencyKey) headers[IDEMPOTENCY_HEADER] = spec.idempotencyKey;
    if (spec.changeGroup) {
      headers[CHANGE_GROUP_HEADER] = spec.changeGroup.id;
      headers[CHANGE_LABEL_HEADER] = encodeURIComponent(
        [...spec.changeGroup.label].slice(0, MAX_CHANGE_LABEL).join(''),
      );
    }
    let body: string | Uint8Array | undefined;
    if (spec.bytes) {
      body = spec.bytes.data;
      headers['content-type'] = spec.bytes.contentType;
    } else if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    const delay = this.nextStartAt - this.clock.now();
    if (delay > 0) await this.clock.sleep(delay);
    const startedAt = this.clock.now();
    let response: TransportResponse;
    try {
      response = await this.transport.send(spec.url, { method: spec.method, headers, body });
    } catch (error) {
      throw networkError(spec.url, error);
    }
    this.nextStartAt = startedAt + pacingMs(header(response.headers, 'ratelimit-policy'));
    const { status, text } = response;
    const requestId = header(response.headers, 'x-request-id');
    if (status === 204)
      return { status, data: undefined as T, raw: undefined, instructions: [], actions: [], replayed: false };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw unexpected(spec.url, status, 'an answer that is not JSON');
    }
    if (status >= 400) {
      const failure = failureEnvelope.safeParse(json);
      if (!failure.success) throw unexpected(spec.url, status, 'an error without the error envelope');
      throw new ApiError(
        status,
        failure.data.error,
        failure.data.actions ?? [],
        requestId,
        parseRetryAfter(header(response.headers, 'retry-after')),
      );
    }
    const envelope = successEnvelope(spec.data).safeParse(json);
    if (!envelope.success) throw unexpected(spec.url, status, 'data in an unexpected shape');
    return {
      status,
      data: envelope.data.data as T,
      raw: (json as { data: unknown }).data,
      instructions: envelope.data.instructions,
      actions: envelope.data.actions,
      replayed: header(response.headers, 'idempotent-replayed') === 'true',
    };
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

function unexpected(url: string, status: number, what: string): CliError {
  return cliError('unexpected_response', {
    message: `${new URL(url).origin} answered ${status} with ${what}.`,
  });
}

function networkError(url: string, error: unknown): CliError {
  const e = error as { code?: string; cause?: { code?: string }; message?: string };
  const code = e.cause?.code ?? e.code ?? 'network error';
  const origin = new URL(url).origin;
  return cliError('network_error', { message: `Cannot reach ${origin} (${code}).` });
}
