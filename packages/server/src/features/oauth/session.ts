import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Principal } from '../auth/api-keys.js';
import { readConsoleSession, sessionKeyOf } from '../console/session.js';

/**
 * The signed-in console user of a browser request (docs/console.md), with the session key, which keys the
 * consent form's CSRF token.
 */
export async function consoleSession(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<{ principal: Principal; sessionKey: string } | undefined> {
  const principal = await readConsoleSession(ctx, request);
  const sessionKey = sessionKeyOf(ctx, request);
  return principal && sessionKey ? { principal, sessionKey } : undefined;
}
