import { type ErrorCode, type ErrorVariantOf, resolveError } from '@expense/wire';
import type { FastifyError, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, isApiError } from './api-error.js';
import { storageApiError } from './storage-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body fields whose invalid (present but wrong) value has its own error code. */
    fieldCodes?: Record<string, ErrorCode>;
    /**
     * Body or query string fields whose invalid value has its own hint (the next step for that field), under
     * invalid_request: a variant of the catalogue's (its words for every audience), or a text of the route's.
     */
    fieldHints?: Record<string, string | { variant: ErrorVariantOf<'invalid_request'> }>;
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
  const named = [...fields].flatMap((f) => request.routeOptions.config.fieldHints?.[f] ?? []);
  const variants = new Set(named.flatMap((h) => (typeof h === 'string' ? [] : [h.variant])));
  const texts = [
    ...new Set(
      named.map((h) => (typeof h === 'string' ? h : resolveError('invalid_request', h.variant).hint)),
    ),
  ];
  const [variant] = variants;
  // One variant alone keeps its name (every audience's words); several hints are the route's own text.
  const situation =
    variant !== undefined && texts.length === 1
      ? { variant }
      : texts.length > 0
        ? { hint: texts.join(' ') }
        : {};
  return new ApiError(
    'invalid_request',
    `The request ${where} is not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    { details: { issues }, ...situation },
  );
}

/** Maps anything thrown to an ApiError; internal errors keep their details in the log only. */
export function toApiError(error: unknown, request?: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  if (request && hasZodFastifySchemaValidationErrors(error)) return validationError(error, request);
  const e = error as FastifyError;
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.');
  }
  const storage = storageApiError(error);
  if (storage) return storage;
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 413) return new ApiError('payload_too_large');
    if (e.statusCode === 415) return new ApiError('unsupported_media_type');
    return new ApiError('invalid_request');
  }
  return new ApiError('internal_error');
}
