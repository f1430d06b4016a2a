import type { FastifyReply } from 'fastify';

/** An OAuth error response (RFC 6749 §5.2): `error` is the protocol's code, `description` for people. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export function sendOAuthError(reply: FastifyReply, e: OAuthError): FastifyReply {
  reply.code(e.status).header('cache-control', 'no-store').type('application/json; charset=utf-8');
  if (e.status === 401) reply.header('www-authenticate', 'Basic realm="expense"');
  return reply.send({ error: e.error, error_description: e.description });
}
