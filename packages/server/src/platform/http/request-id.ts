import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** A new request id (Fastify's genReqId, and the socket-level answers that have no request). */
export const newRequestId = (): string => `req_${randomUUID().replace(/-/g, '')}`;

/** X-Request-Id on every response, set before anything can fail. */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}
