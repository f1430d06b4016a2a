import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

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
