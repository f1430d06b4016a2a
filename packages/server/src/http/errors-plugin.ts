import type { ErrorCode } from '@expense/wire';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { StorageError } from '../storage/errors.js';
import type { ActionBuilder } from './actions.js';
import { ApiError, isApiError } from './api-error.js';
import { failure } from './envelope.js';

/** Largest accepted request body: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body fields whose invalid (present but wrong) value has its own error code. */
    fieldCodes?: Record<string, ErrorCode>;
  }
}

interface Issue {
  path: string;
  message: string;
}

function validationError(
  error: FastifyError & { validation: { instancePath: string; message?: string }[] },
  request: FastifyRequest,
): ApiError {
  const where = error.validationContext ?? 'body';
  const issues: Issue[] = error.validation.map((v) => ({
    path: `${where}${v.instancePath.replace(/\//g, '.').replace(/\.$/, '')}`,
    message: v.message ?? 'invalid',
  }));
  const fields = new Set(error.validation.map((v) => v.instancePath.split('/')[1] ?? ''));
  const fieldCodes = request.routeOptions.config.fieldCodes ?? {};
  if (where === 'body' && fields.size === 1) {
    const [field] = [...fields];
    const body = request.body as Record<string, unknown> | undefined;
    const code = field ? fieldCodes[field] : undefined;
    if (code && body && typeof body === 'object' && body[field!] !== undefined) {
      return new ApiError(code, `${field}: ${issues[0]?.message ?? 'invalid'}`, { details: { issues } });
    }
  }
  return new ApiError(
    'invalid_request',
    `The request ${where} is not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    {
      details: { issues },
    },
  );
}

function isDatabaseDown(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P03', '53300'].includes(code) ||
    code.startsWith('08')
  );
}

/** Maps anything thrown to an ApiError; internal errors keep their details in the log only. */
export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error)) return validationError(error, request);
  const e = error as FastifyError;
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new ApiError(
            'unsupported_media_type',
            'The request body must be JSON (Content-Type: application/json).',
          )
        : new ApiError('invalid_request', 'The Content-Length header does not match the body.');
  }
  if (error instanceof StorageError) {
    if (error.code === 'mutation_outcome_unknown') {
      return new ApiError('mutation_outcome_unknown', error.message, {
        hint: 'Check whether the change was applied before retrying.',
      });
    }
    if (error.code === 'database_unavailable' || error.code === 'database_closed') {
      return new ApiError('database_unavailable', 'The database is not available.');
    }
    return new ApiError('internal_error', 'Something went wrong on the server.');
  }
  if (isDatabaseDown(error)) return new ApiError('database_unavailable', 'The database is not available.');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 413)
      return new ApiError('payload_too_large', 'The request body is larger than 1 MiB.');
    if (e.statusCode === 415) return new ApiError('unsupported_media_type', 'The request body must be JSON.');
    return new ApiError('invalid_request', 'The request is not valid.');
  }
  return new ApiError('internal_error', 'Something went wrong on the server.');
}

export function sendError(reply: FastifyReply, error: ApiError, actions: ActionBuilder): FastifyReply {
  for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(failure(error, actions));
}

function routePattern(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Envelopes for every failure: the error handler, the not-found handler (with 405 for a known path and
 * another method), the JSON body parser (1 MiB, empty bodies allowed), and X-Request-Id on every response.
 */
export function registerHttpBasics(app: FastifyInstance, actions: ActionBuilder): void {
  const routes: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ pattern: routePattern(route.url), method });
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

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

  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, apiError, actions);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      const error = new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, {
        headers: { allow: allowed.join(', ') },
        details: { allowed },
      });
      return sendError(reply, error, actions);
    }
    return sendError(reply, new ApiError('not_found', `No route ${request.method} ${path}.`), actions);
  });
}

/**
 * Fastify answers a few malformed requests before any route or hook runs (bad percent-encoding, an
 * over-long path parameter) and Node answers unparseable HTTP on the socket. These give the same envelope.
 */
export function frameworkErrorHandler(actions: ActionBuilder) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const apiError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', 'No such resource: a path parameter is longer than any valid id.')
        : new ApiError('invalid_request', 'The request URL is not valid (check its percent-encoding).');
    reply.header('x-request-id', request.id);
    sendError(reply, apiError, actions);
  };
}

/** For requests Node cannot parse as HTTP: a plain 400 envelope on the socket, then close it. */
export function clientErrorHandler(actions: ActionBuilder, newRequestId: () => string) {
  return (error: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      failure(
        new ApiError(
          'invalid_request',
          tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
        ),
        actions,
      ),
    );
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
