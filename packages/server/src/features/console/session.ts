import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Principal } from '../auth/api-keys.js';
import { verifyKey } from '../auth/authenticate.js';
import { isWellFormedApiKey } from '../auth/secrets.js';

/** A console session is an ApiKey of kind `console` that lives this long (docs/console.md). */
export const CONSOLE_SESSION_HOURS = 12;

/** Where the console lives, relative to the server's prefix. */
export const CONSOLE_PATH = '/console';

/**
 * The session cookie's name. Browsers accept a `__Host-` cookie only with Secure (and Path=/, no Domain), and
 * a Secure cookie is not sent over plain http: on an http origin (development, tests) the prefix is dropped.
 */
export function consoleCookieName(publicUrl: string): string {
  return isHttps(publicUrl) ? '__Host-expense_console' : 'expense_console';
}

function isHttps(publicUrl: string): boolean {
  return new URL(publicUrl).protocol === 'https:';
}

/**
 * The session cookie's attributes (written by @fastify/cookie): HttpOnly, SameSite=Strict, Path=/, Secure on an
 * https origin, and a Max-Age of the key's lifetime (0 clears it).
 */
export function sessionCookieOptions(publicUrl: string, maxAgeSeconds: number): CookieSerializeOptions {
  return {
    maxAge: maxAgeSeconds,
    path: '/',
    httpOnly: true,
    secure: isHttps(publicUrl),
    sameSite: 'strict',
  };
}

/** Stores a new session key in the cookie (12 hours). */
export function setSessionCookie(reply: FastifyReply, publicUrl: string, apiKey: string): FastifyReply {
  return reply.setCookie(
    consoleCookieName(publicUrl),
    apiKey,
    sessionCookieOptions(publicUrl, CONSOLE_SESSION_HOURS * 3600),
  );
}

/**
 * The cookie that carries a one-time notice to the sign-in page across sign-out's redirect (the account was
 * deleted): named like the session cookie, with its attributes and a lifetime of a minute. Only a same-origin
 * request can set it (sign-out's Origin check), unlike a query parameter that any link could carry.
 */
export function consoleNoticeCookieName(publicUrl: string): string {
  return `${consoleCookieName(publicUrl)}_notice`;
}

/** Removes the session cookie (an empty value with Max-Age=0). */
export function clearSessionCookie(reply: FastifyReply, publicUrl: string): FastifyReply {
  return reply.setCookie(consoleCookieName(publicUrl), '', sessionCookieOptions(publicUrl, 0));
}

/** The session key in a request's cookie (parsed by @fastify/cookie; not yet verified), or undefined. */
export function sessionKeyOf(ctx: AppContext, request: FastifyRequest): string | undefined {
  const value = request.cookies[consoleCookieName(ctx.config.publicUrl)];
  return value !== undefined && isWellFormedApiKey(value) ? value : undefined;
}

/**
 * The signed-in person of a console request, or null: the cookie's key must be a live key of kind `console`
 * (not revoked, not expired). Unknown keys spend the client's invalid-key budget like on the API.
 */
export async function readConsoleSession(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<Principal | null> {
  const key = sessionKeyOf(ctx, request);
  if (!key) return null;
  const principal = await verifyKey(ctx, key, request.ip);
  return principal?.kind === 'console' ? principal : null;
}

/**
 * A same-origin path to return to after sign-in, or the console's home. Only a path that starts with one `/`
 * and resolves on this origin is accepted (no `//host`, no `/\host`, no scheme, no control characters), so
 * the sign-in page cannot be used as an open redirect.
 */
export function safeReturnTo(value: unknown, prefix = ''): string {
  const home = `${prefix}${CONSOLE_PATH}/`;
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return home;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return home;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f]/.test(value)) return home;
  const base = 'http://console.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return home;
  }
  if (url.origin !== base) return home;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's address that comes back to `returnTo` (a same-origin path) afterwards. */
export function signInUrl(returnTo: string, prefix = ''): string {
  return `${prefix}${CONSOLE_PATH}/sign-in?return_to=${encodeURIComponent(safeReturnTo(returnTo, prefix))}`;
}

/** Sends an unsigned-in browser to sign-in, returning afterwards to the page it asked for (303). */
export function redirectToSignIn(reply: FastifyReply, request: FastifyRequest, prefix = ''): FastifyReply {
  return reply.redirect(signInUrl(request.url, prefix), 303);
}
