import { defaultLimits } from '@expense/sql-guard';
import {
  API_ROUTES,
  CHANGE_GROUP_HEADER,
  ChangeDataSchema,
  ChangeParamsSchema,
  ChangeRevertBodySchema,
  ChangeRevertDataSchema,
  ChangesDataSchema,
  ChangesQuerySchema,
  fastifyRoute,
  IDEMPOTENCY_HEADER,
  WORKSPACE_HEADER,
} from '@expense/wire';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { idempotencyKeyOf } from '../../platform/idempotency/key.js';
import type { Claim } from '../../platform/idempotency/store.js';
import { executeWrite, sendAnswer } from '../../platform/idempotency/write.js';
import { principalOf } from '../auth/authenticate.js';
import { redeemConfirmation, revertSubject } from '../sql/confirm-tokens.js';
import { ArrivalDeadline, clientGone } from '../sql/deadline.js';
import { dryRunInstruction } from '../sql/envelope.js';
import { resolveWorkspace } from '../sql/workspace.js';
import { isUuid } from '../workspaces/store.js';
import { changeGroupHeaders, changeGroupOf } from './group.js';
import { revertChange } from './revert.js';
import {
  changeRows,
  droppedHistory,
  findChange,
  groupMembers,
  historyTimeZone,
  idPrefixRange,
  listChanges,
  matchChanges,
  purgeChanges,
  setHistoryLimits,
} from './store.js';

const PURGE_INTERVAL_MS = 60 * 60_000;
const PURGE_BATCH = 1000;
const PURGE_MAX_BATCHES = 20;

const headers = z.object({
  [WORKSPACE_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe("This workspace's history instead of the key's saved workspace's (membership is checked)."),
});
const revertHeaders = z.object({
  ...headers.shape,
  ...changeGroupHeaders,
  [IDEMPOTENCY_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe('As on the SQL endpoints: the response is kept 24 hours for this ApiKey and replayed.'),
});

function notFound(): ApiError {
  return new ApiError(
    'not_found',
    'This workspace has no change with this changeId (changes are kept 90 days).',
    { variant: 'change' },
  );
}

/**
 * 404 not_found for a change that is not there; when the workspace's history bound dropped older changes, the
 * message and details say so (and whether this id is one of them: change ids are time-ordered).
 */
async function missingChange(ctx: AppContext, workspaceId: string, changeId: string): Promise<ApiError> {
  const dropped = await droppedHistory(ctx.db, workspaceId, isUuid(changeId) ? changeId : undefined);
  if (!dropped) return notFound();
  const bound = `${ctx.config.changeHistoryMaxBytes} bytes and ${ctx.config.changeHistoryMaxChanges} changes`;
  return new ApiError(
    'not_found',
    dropped.idWasDropped
      ? `This change was dropped from the workspace's history: it keeps the newest ${bound} (and 90 days), and ${dropped.droppedChanges} older change(s) up to ${dropped.droppedThrough} were dropped.`
      : `This workspace has no change with this changeId. Its history keeps the newest ${bound} (and 90 days); ${dropped.droppedChanges} older change(s) up to ${dropped.droppedThrough} were dropped.`,
    {
      variant: dropped.idWasDropped ? 'dropped_change' : 'change',
      details: {
        reason: dropped.idWasDropped ? 'dropped_by_history_bound' : 'unknown_change',
        droppedChanges: dropped.droppedChanges,
        droppedThrough: dropped.droppedThrough,
        maxBytes: ctx.config.changeHistoryMaxBytes,
        maxChanges: ctx.config.changeHistoryMaxChanges,
      },
    },
  );
}

/**
 * The change that `given` names in the workspace: its whole id, its short id (GET /v1/changes' shortId) or a unique
 * prefix of its id. Several matches are 409 ambiguous_change_id listing them; none is the not-found answer.
 */
async function resolveChangeId(ctx: AppContext, workspaceId: string, given: string): Promise<string> {
  if (isUuid(given)) return given.toLowerCase();
  const candidates = await matchChanges(ctx.db, workspaceId, given);
  if (candidates.length === 0) throw await missingChange(ctx, workspaceId, given);
  if (candidates.length === 1) return candidates[0]!.changeId;
  throw new ApiError(
    'ambiguous_change_id',
    `${candidates.length === 10 ? '10 or more changes' : `${candidates.length} changes`} of this workspace match ${given}: ${candidates.map((c) => c.shortId).join(', ')}.`,
    { details: { candidates } },
  );
}

/** GET /v1/changes, GET /v1/changes/{changeId}, POST /v1/changes/{changeId}/revert. */
export function changeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await setHistoryLimits(ctx.db, {
      maxBytes: ctx.config.changeHistoryMaxBytes,
      maxChanges: ctx.config.changeHistoryMaxChanges,
    });
    const { idempotency } = ctx;
    // Changes older than 90 days, in bounded batches so that no purge holds locks for long.
    const purge = setInterval(() => {
      void (async () => {
        for (let i = 0; i < PURGE_MAX_BATCHES; i++) {
          if ((await purgeChanges(ctx.db, PURGE_BATCH)) < PURGE_BATCH) break;
        }
      })().catch((error: unknown) => app.log.warn({ err: error }, 'change history purge'));
    }, PURGE_INTERVAL_MS);
    purge.unref();
    app.addHook('onClose', async () => clearInterval(purge));

    const workspaceOf = (request: FastifyRequest, header = request.headers['x-workspace-id']) =>
      resolveWorkspace(ctx.db, ctx.actions, principalOf(request), header);

    app.route({
      ...fastifyRoute(API_ROUTES.changes),
      schema: {
        tags: ['changes'],
        summary: "The workspace's change history, newest first (kept 90 days)",
        security: apiKeySecurity,
        headers,
        querystring: ChangesQuerySchema,
        response: responses(200, ChangesDataSchema),
      },
      handler: async (request) => {
        const workspaceId = await workspaceOf(request);
        const { before, limit = 20, idPrefix } = request.query;
        if (before !== undefined && !isUuid(before)) throw notFound();
        const range = idPrefix === undefined ? undefined : idPrefixRange(idPrefix);
        // A prefix with no hex digit in it (only dashes) matches no id.
        const changes =
          idPrefix !== undefined && range === undefined
            ? []
            : await listChanges(ctx.db, workspaceId, {
                limit,
                ...(before ? { before } : {}),
                ...(range ? { idPrefix: range } : {}),
              });
        const instructions = [
          'Every committed write is listed with its SQL, who sent it and the rows per statement. Show the user what changed; GET /v1/changes/{changeId} has the row images, POST /v1/changes/{changeId}/revert undoes one (dry run first).',
        ];
        if (changes.length === limit) {
          instructions.push(`More changes may be older: GET /v1/changes?before=${changes.at(-1)?.changeId}.`);
        } else {
          const dropped = await droppedHistory(ctx.db, workspaceId, undefined);
          if (dropped) {
            instructions.push(
              `Older changes are gone: this workspace's history keeps the newest ${ctx.config.changeHistoryMaxBytes} bytes and ${ctx.config.changeHistoryMaxChanges} changes (and 90 days); ${dropped.droppedChanges} change(s) up to ${dropped.droppedThrough} were dropped and cannot be reverted.`,
            );
          }
        }
        const timeZone = await historyTimeZone(ctx.db, workspaceId);
        return success({ workspaceId, timeZone, changes }, instructions);
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.change),
      schema: {
        tags: ['changes'],
        summary: 'One change with the before and after image of every row it wrote',
        security: apiKeySecurity,
        headers,
        params: ChangeParamsSchema,
        response: responses(200, ChangeDataSchema),
      },
      handler: async (request) => {
        const workspaceId = await workspaceOf(request);
        const changeId = await resolveChangeId(ctx, workspaceId, request.params.changeId);
        const change = await findChange(ctx.db, workspaceId, changeId);
        if (!change) throw await missingChange(ctx, workspaceId, changeId);
        const rows = await changeRows(ctx.db, changeId);
        const members = change.group ? await groupMembers(ctx.db, workspaceId, change.group.groupId) : [];
        const instructions = change.group
          ? [
              `This change is one of the ${change.group.changes} changes of the group "${change.group.label ?? ''}" (members, oldest first). To undo the group, revert each member not yet reverted, newest first, one request each (with the same ${CHANGE_GROUP_HEADER} on each revert, the reverts are one entry too).`,
            ]
          : change.revertedBy
            ? [`This change was reverted by ${change.revertedBy}.`]
            : [
                `To undo it, send POST /v1/changes/${changeId}/revert with {"dryRun": true}, show the user the effect, then send it without dryRun.`,
              ];
        const timeZone = await historyTimeZone(ctx.db, workspaceId);
        return success(
          { workspaceId, timeZone, change, rows, ...(change.group ? { members } : {}) },
          instructions,
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.revertChange),
      schema: {
        tags: ['changes'],
        summary:
          'Undo a change atomically if every row is still as it left it (else 409 change_conflict); dryRun rolls back',
        security: apiKeySecurity,
        headers: revertHeaders,
        params: ChangeParamsSchema,
        body: ChangeRevertBodySchema.strict().nullish(),
        response: responses(200, ChangeRevertDataSchema),
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const dryRun = request.body?.dryRun === true;
        const group = changeGroupOf(request.headers);
        // A short id or prefix is resolved in the request's workspace (X-Workspace-Id or the key's saved one).
        const given = request.params.changeId;
        const changeId = isUuid(given)
          ? given.toLowerCase()
          : await resolveChangeId(ctx, await workspaceOf(request), given);
        const subject = revertSubject(changeId);
        // As on /sql: a dry run's token commits this revert once, in the dry run's workspace, on any instance.
        const { confirm, key } = await redeemConfirmation(ctx.confirmations, {
          principal,
          token: request.body?.confirmToken,
          subject,
          workspaceId: request.headers['x-workspace-id'],
          dryRun,
          key: idempotencyKeyOf(request.headers['idempotency-key']),
        });
        const workspaceId = await workspaceOf(request, request.headers['x-workspace-id'] ?? confirm?.w);
        const token = dryRun
          ? await ctx.confirmations.issue(principal.connectionId, workspaceId, subject)
          : undefined;
        if (!isUuid(changeId) || !(await findChange(ctx.db, workspaceId, changeId))) {
          throw await missingChange(ctx, workspaceId, changeId);
        }
        const render = (data: Parameters<Parameters<typeof revertChange>[1]['render']>[0]) =>
          JSON.stringify(
            success({ ...data, ...token }, [
              data.committed
                ? `Reverted: the rows are as they were before change ${changeId}. The revert is change ${data.changeId ?? '(none: nothing to undo)'}${data.shortId ? ` (short id ${data.shortId})` : ''} and can be reverted too.`
                : dryRunInstruction('revert', token !== undefined),
            ]),
          );
        // On the user-SQL path: an in-flight place (held until the connection is back in the pool), the deadline
        // from the request's arrival, the user-SQL pool; with an Idempotency-Key, the SQL endpoints' one flow.
        const deadline = new ArrivalDeadline(Date.now() - reply.elapsedTime, ctx.config.sqlDeadlineMs);
        const signal = clientGone(reply.raw);
        const revert = (claim?: Claim) =>
          revertChange(ctx.db, {
            principal,
            workspaceId,
            changeId,
            dryRun,
            idempotency,
            render,
            deadline,
            signal,
            requestId: request.id,
            maxAffectedRows: defaultLimits.maxAffectedRows,
            ...(group ? { group } : {}),
            ...(claim ? { claim } : {}),
            ...(confirm ? { confirm } : {}),
          });
        const answer = await executeWrite(ctx, {
          principal,
          key,
          endpoint: '/changes/revert',
          subject: changeId,
          dryRun,
          workspace: async () => workspaceId,
          run: revert,
          log: request.log,
        });
        sendAnswer(reply, answer);
      },
    });
  };
}
