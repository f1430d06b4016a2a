/** The errors of the dialect functions, each with a stable code (callers test `error.code`, not `instanceof`). */
import type { DialectErrorCode } from '../types.js';

/**
 * introspectDialect could not read a dialect: a relation named does not exist or grants the role nothing, or the
 * catalog read failed (`sqlstate` is PostgreSQL's). verifyDialect throws it too when its catalog read fails.
 */
export class IntrospectionError extends Error {
  override readonly name = 'IntrospectionError';
  readonly code = 'introspection_failed' satisfies DialectErrorCode;
  readonly problems: readonly string[];
  readonly sqlstate: string | undefined;

  constructor(problems: readonly string[], options: { sqlstate?: string; cause?: unknown } = {}) {
    super(`introspectDialect: ${problems.join('; ')}.`, { cause: options.cause });
    this.problems = problems;
    this.sqlstate = options.sqlstate;
  }
}

/** An argument other than the dialect is not what the function takes (a role name that is no name, say). */
export class DialectArgumentError extends TypeError {
  override readonly name = 'DialectArgumentError';
  readonly code = 'invalid_argument' satisfies DialectErrorCode;
}

/** A catalog read; PostgreSQL's refusal of it (or a lost connection) becomes an IntrospectionError. */
export async function catalogRead<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof IntrospectionError) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
    const message = String((error as { message?: unknown } | null)?.message ?? error);
    throw new IntrospectionError([`${what} failed: ${message}`], {
      cause: error,
      ...(sqlstate ? { sqlstate } : {}),
    });
  }
}
