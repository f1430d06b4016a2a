import type { FastifyReply } from 'fastify';
import type { ActionBuilder } from '../http/actions.js';
import { isApiError } from '../http/api-error.js';
import { failure } from '../http/envelope.js';
import type { InflightLimiter, InflightSubject } from '../inflight/index.js';
import type { Queryable } from '../storage/database.js';
import { requestHash } from './key.js';
import { type Claim, IdempotencyStore, type KeptResponse } from './store.js';

/** The header of a response sent again from its record. */
export const REPLAYED_HEADER = 'idempotent-replayed';

const DAY_MS = 86_400_000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** An answer to send: the status, the exact JSON text (kept, or sent again), and its headers. */
export interface WriteAnswer extends KeptResponse {
  headers: Record<string, string>;
}

/** Sends an answer as it is: its status, its headers and its JSON text, byte for byte. */
export function sendAnswer(reply: FastifyReply, answer: WriteAnswer): FastifyReply {
  return reply.headers(answer.headers).code(answer.statusCode).type(JSON_TYPE).send(answer.body);
}

/**
 * The records of writes that run within the SQL deadline (the SQL endpoints and reverts): kept 24 hours; a pending
 * one is stale a minute after its request's deadline, and a second request waits for the first up to its deadline.
 */
export function writeIdempotency(db: Queryable, deadlineMs: number): IdempotencyStore {
  return new IdempotencyStore(db, {
    ttlMs: DAY_MS,
    staleAfterMs: deadlineMs + 60_000,
    waitMs: deadlineMs + 5_000,
    pollMs: 50,
  });
}

/** One write with an Idempotency-Key, and what the answer to it needs. */
export interface KeyedWrite {
  key: string;
  connectionId: string;
  /** What makes two requests the same (requestHash): another request with the key is idempotency_key_reused. */
  request: { endpoint: string; workspaceId: string | null; sql: string; dryRun: boolean };
  /** What the run threw, as the ApiError that answers it (or as it was, for what maps later); default: as thrown. */
  toApiError?(error: unknown): unknown;
  actions: ActionBuilder;
  log: { warn(details: { err: unknown }, message: string): void };
}

/**
 * The one flow of a write with an Idempotency-Key (the SQL endpoints and reverts alike). The key is claimed
 * first: a completed record is the answer, sent again byte for byte with `idempotent-replayed: true`; a record of
 * another request is 409 idempotency_key_reused; one still running is waited for, then replayed (or 409
 * in_progress when it outlasts the wait). Holding the claim, `run` does the write and returns the success
 * envelope's JSON text (or a status and that text); a committed write records it in its own transaction
 * (completeInTransaction, completeOn), a dry run
 * is recorded here. A refusal (under 500: nothing was committed, and the same request would be refused again)
 * is recorded like a success unless it says to retry (busy, rate limited); anything else gives the key back for a retry and is thrown.
 */
export async function keyedWrite(
  store: IdempotencyStore,
  write: KeyedWrite,
  run: (claim: Claim) => Promise<string | KeptResponse>,
): Promise<WriteAnswer> {
  const begun = await store.begin({
    connectionId: write.connectionId,
    key: write.key,
    requestHash: requestHash(write.request),
    workspaceId: write.request.workspaceId,
  });
  if ('replay' in begun) return { ...begun.replay, headers: { [REPLAYED_HEADER]: 'true' } };
  const { claim } = begun;
  try {
    const ran = await run(claim);
    const kept: KeptResponse = typeof ran === 'string' ? { statusCode: 200, body: ran } : ran;
    if (write.request.dryRun) await store.complete(claim, kept);
    return { ...kept, headers: {} };
  } catch (error) {
    const mapped = write.toApiError ? write.toApiError(error) : error;
    if (isApiError(mapped) && mapped.status < 500) {
      const envelope = failure(mapped, write.actions);
      // A refusal that says "retry" (busy, a rate limit) gives the key back: its retry must run, not replay it.
      if (envelope.error.retryable) {
        await store.release(claim).catch((e: unknown) => write.log.warn({ err: e }, 'idempotency release'));
        throw mapped;
      }
      const kept = { statusCode: mapped.status, body: JSON.stringify(envelope) };
      await store.complete(claim, kept);
      return { ...kept, headers: { ...mapped.options.headers } };
    }
    // Nothing was committed (or, for an unknown outcome, the record tells): let a retry run.
    await store.release(claim).catch((e: unknown) => write.log.warn({ err: e }, 'idempotency release'));
    throw mapped;
  }
}

/** What the write command uses: the in-flight places, the Idempotency-Key records, the actions of a refusal. */
export interface WriteDeps {
  inflight: InflightLimiter;
  idempotency: IdempotencyStore;
  actions: ActionBuilder;
}

/** One write on the user-SQL path: /sql/execute, /sql (script), a revert (features/changes), each batch of an import. */
export interface WriteCommand {
  /** Whose in-flight place the write takes and whose key it is recorded under. */
  principal: InflightSubject;
  /** The Idempotency-Key (the request's, or its token's): the answer is recorded and replayed under it. */
  key: string | undefined;
  /** With the workspace and the dry-run flag, what makes two requests under one key the same. */
  endpoint: string;
  subject: string;
  dryRun: boolean;
  /** The workspace, resolved inside the in-flight place before a keyed write claims its key. */
  workspace(): Promise<string>;
  /** The write itself: the success envelope's JSON text; with a claim, the record completed in its transaction. */
  run(claim?: Claim, workspaceId?: string): Promise<string | KeptResponse>;
  /** What the run threw, as the ApiError that answers it. */
  toApiError?(error: unknown): unknown;
  log: { warn(details: { err: unknown }, message: string): void };
}

/**
 * The one write choreography: an in-flight place (held until the connection is back in the pool), then the write,
 * through the Idempotency-Key record when keyed (keyedWrite: claim, replay, reuse and refusals recorded).
 */
export async function executeWrite(deps: WriteDeps, command: WriteCommand): Promise<WriteAnswer> {
  const { principal, key } = command;
  const lease = await deps.inflight.admit(principal);
  try {
    if (key === undefined) {
      const ran = await command.run().catch((error: unknown) => {
        throw command.toApiError ? command.toApiError(error) : error;
      });
      return typeof ran === 'string' ? { statusCode: 200, body: ran, headers: {} } : { ...ran, headers: {} };
    }
    const workspaceId = await command.workspace();
    return await keyedWrite(
      deps.idempotency,
      {
        key,
        connectionId: principal.connectionId,
        request: { endpoint: command.endpoint, workspaceId, sql: command.subject, dryRun: command.dryRun },
        ...(command.toApiError ? { toApiError: command.toApiError } : {}),
        actions: deps.actions,
        log: command.log,
      },
      (claim) => command.run(claim, workspaceId),
    );
  } finally {
    await lease.release();
  }
}
