import type { FastifyReply } from 'fastify';
import type { ActionBuilder } from './actions.js';
import type { ApiError } from './api-error.js';
import { failure } from './envelope.js';

/** Answers with the failure envelope of an ApiError, its status and its headers. */
export function sendError(reply: FastifyReply, error: ApiError, actions: ActionBuilder): FastifyReply {
  for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(failure(error, actions));
}
