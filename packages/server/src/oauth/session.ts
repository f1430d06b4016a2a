import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-keys.js';
import type { AppContext } from '../context.js';

/**
 * The console session cookie (docs/console.md): an ApiKey of kind console. Read here without the cookie plugin so
 * the consent page works whatever the console registers.
 */
export const CONSOLE_SESSION_COOKIE = '__Host-expense-session';
export const CONSOLE_SIGN_IN_PATH = '/console/sign-in';

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The signed-in console user of a browser request, with the session key (for the CSRF token). */
export async function consoleSession(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<{ principal: Principal; sessionKey: string } | undefined> {
  const key = cookieValue(request.headers.cookie, CONSOLE_SESSION_COOKIE);
  if (!key) return undefined;
  const principal = await ctx.keys.verify(key);
  return principal?.kind === 'console' ? { principal, sessionKey: key } : undefined;
}
