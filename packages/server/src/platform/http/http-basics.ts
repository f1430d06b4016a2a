import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ActionBuilder } from './actions.js';
import { ApiError } from './api-error.js';
import { toApiError } from './error-mapping.js';
import { registerNotFound } from './not-found.js';
import { sendError } from './send-error.js';

export interface HttpBasicsOptions {
  actions: ActionBuilder;
}

/**
 * The envelope for every failure, as one plugin on the instance that registers it (not encapsulated):
 * X-Request-Id on every response, the JSON body parser, the error handler (anything thrown, mapped by
 * error-mapping.ts), and 404/405. Register it before the routes. The socket-level answers are Fastify
 * constructor options: see socket-errors.ts.
 */
export const httpBasics = fp<HttpBasicsOptions>(
  async (app, { actions }) => {
    registerRequestId(app);
    registerJsonBodyParser(app);
    app.setErrorHandler((error, request, reply) => {
      const apiError = toApiError(error, request);
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(reply, apiError, actions);
    });
    registerNotFound(app, actions);
  },
  { name: 'expense-http-basics', fastify: '5.x' },
);

/** A new request id (Fastify's genReqId, and the socket-level answers that have no request). */
export const newRequestId = (): string => `req_${randomUUID().replace(/-/g, '')}`;

/** X-Request-Id on every response, set before anything can fail. */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}

/** Largest accepted request body: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

/** JSON is the only body type: at most 1 MiB, an empty body allowed (no body), malformed JSON invalid_request. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (request, body, done) => {
      if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
      defaultJson(request, body as string, (error, value) => {
        if (error)
          return done(new ApiError('invalid_request', 'The request body is not valid JSON.'), undefined);
        done(null, value);
      });
    },
  );
}
