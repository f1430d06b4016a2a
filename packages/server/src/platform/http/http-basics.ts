import fp from 'fastify-plugin';
import type { ActionBuilder } from './actions.js';
import { registerJsonBodyParser } from './body-parser.js';
import { toApiError } from './error-mapping.js';
import { registerNotFound } from './not-found.js';
import { registerRequestId } from './request-id.js';
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
