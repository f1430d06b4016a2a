import type { DestinationStream, LoggerOptions } from 'pino';

/**
 * Paths pino removes from every log line. Fastify never logs bodies by default; these cover headers, and any
 * place a key, code or session token could be attached to a log object by mistake.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'req.body',
  'res.body',
  'body',
  'apiKey',
  '*.apiKey',
  'otpSessionToken',
  '*.otpSessionToken',
  'authorization',
  '*.authorization',
];

export interface LoggerSettings {
  level: string;
  stream?: DestinationStream | undefined;
}

/** JSON lines, with the request path only (no query string) and secrets redacted. */
export function loggerOptions(settings: LoggerSettings): LoggerOptions & { stream?: DestinationStream } {
  const options: LoggerOptions & { stream?: DestinationStream } = {
    level: settings.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req(req: { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } }) {
        return {
          method: req.method,
          url: req.url?.split('?')[0],
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        };
      },
    },
  };
  if (settings.stream) options.stream = settings.stream;
  return options;
}
