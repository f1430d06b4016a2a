import { IDEMPOTENCY_HEADER } from '@expense/wire';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ActionBuilder } from '../http/actions.js';
import type { Database, Queryable } from '../storage/database.js';
import { idempotencyKeyOf } from './key.js';
import type { IdempotencyStore } from './store.js';
import { keyedWrite, sendAnswer } from './write.js';

/** The Idempotency-Key header as a route's schema declares it (the OpenAPI document shows it). */
export const idempotencyHeaderSchema = {
  [IDEMPOTENCY_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe(
      'Up to 255 visible ASCII characters; the response is kept 24 hours for this ApiKey and replayed for the same request.',
    ),
};

/** A route's answer: its status and the success envelope. */
export interface RouteAnswer<E> {
  status: number;
  envelope: E;
}

/** A write of the server's own tables (not user SQL) that a client may repeat with an Idempotency-Key. */
export interface OwnerWrite<T, E> {
  /** `POST /workspaces`: with the workspace and the body, what makes two requests the same. */
  endpoint: string;
  workspaceId: string | null;
  /** The work, in one transaction. */
  transaction(tx: Queryable): Promise<T>;
  /** The answer to what was written (pure: it is recorded before the commit and replayed as recorded). */
  answer(result: T): RouteAnswer<E>;
  /** Once the transaction committed, before the answer goes out (a mail); never on a replay. */
  afterCommit?(result: T): Promise<void>;
  /** What the transaction threw, as the ApiError that answers it (refusals under 500 are recorded and replayed). */
  toApiError?(error: unknown): unknown;
}

/**
 * Runs an owner-role write. Without an Idempotency-Key it is a plain transaction and answer. With one, the key is
 * claimed first (keyedWrite: a repeat replays the recorded answer, another body is idempotency_key_reused), and
 * the answer is recorded in the write's own transaction, so it is "done" exactly when the write committed.
 */
export async function ownerWrite<T, E>(
  deps: { db: Database; idempotency: IdempotencyStore; actions: ActionBuilder },
  request: FastifyRequest,
  reply: FastifyReply,
  connectionId: string,
  write: OwnerWrite<T, E>,
): Promise<E | FastifyReply> {
  const key = idempotencyKeyOf(request.headers['idempotency-key']);
  const mapped = (error: unknown) => {
    throw write.toApiError ? write.toApiError(error) : error;
  };
  if (key === undefined) {
    const result = await deps.db.transaction((tx) => write.transaction(tx)).catch(mapped);
    await write.afterCommit?.(result);
    const { status, envelope } = write.answer(result);
    reply.code(status);
    return envelope;
  }
  const answer = await keyedWrite(
    deps.idempotency,
    {
      key,
      connectionId,
      request: {
        endpoint: write.endpoint,
        workspaceId: write.workspaceId,
        sql: JSON.stringify(request.body ?? null),
        dryRun: false,
      },
      actions: deps.actions,
      log: request.log,
      ...(write.toApiError ? { toApiError: write.toApiError } : {}),
    },
    async (claim) => {
      let result: T | undefined;
      const kept = await deps.db.transaction(async (tx) => {
        result = await write.transaction(tx);
        const { status, envelope } = write.answer(result);
        const answer = { statusCode: status, body: JSON.stringify(envelope) };
        await deps.idempotency.completeOn(tx, claim, answer);
        return answer;
      });
      await write.afterCommit?.(result as T);
      return kept;
    },
  );
  return sendAnswer(reply, answer);
}
