import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';
import { consoleCookieName } from '../../console/session.js';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A console session as the console creates it: an ApiKey of kind console, sent as its cookie. */
export async function consoleCookie(db: Database, userId: string, origin: string): Promise<string> {
  const { apiKey } = await createApiKey(db, userId, 'browser', {
    kind: 'console',
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  return `${consoleCookieName(origin)}=${apiKey}`;
}

export interface ConsentChoice {
  access?: 'read' | 'read_write';
  workspace?: string;
  lifetime?: string;
  decision?: 'approve' | 'deny';
}

const attr = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');

/**
 * What a browser does with an authorization URL: follows the same-origin continue page to the consent page
 * (with the session cookie), submits the form with the user's choice, and returns the redirect to the client.
 */
export async function consentInBrowser(
  origin: string,
  authorizationUrl: string,
  cookie: string,
  choice: ConsentChoice = {},
  /** The server's public origin, as the browser sends it (when the socket's address differs). */
  publicOrigin = origin,
): Promise<URL> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await first.text();
  if (first.status !== 200) throw new Error(`authorize answered ${first.status}: ${html.slice(0, 300)}`);
  const next = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1];
  if (!next) {
    const location = first.headers.get('location');
    if (location) return new URL(location);
    throw new Error(`no continue page: ${html.slice(0, 300)}`);
  }
  const consent = await fetch(`${origin}${next.replace(/&amp;/g, '&')}`, {
    headers: { cookie },
    redirect: 'manual',
  });
  const page = await consent.text();
  if (consent.status !== 200) throw new Error(`consent answered ${consent.status}: ${page.slice(0, 300)}`);
  const form = new URLSearchParams({
    request: attr(page, 'request') ?? '',
    csrf: attr(page, 'csrf') ?? '',
    access: choice.access ?? 'read_write',
    workspace: choice.workspace ?? 'all',
    lifetime: choice.lifetime ?? '30',
    decision: choice.decision ?? 'approve',
  });
  const posted = await fetch(`${origin}/oauth/consent`, {
    method: 'POST',
    headers: { cookie, origin: publicOrigin, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  const location = posted.headers.get('location');
  if (posted.status !== 303 || !location) {
    throw new Error(`consent POST answered ${posted.status}: ${(await posted.text()).slice(0, 2000)}`);
  }
  return new URL(location);
}

export async function tokenRequest(origin: string, params: Record<string, string>) {
  const res = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  // biome-ignore lint/suspicious/noExplicitAny: token responses are JSON the tests assert on field by field
  return { status: res.status, body: (await res.json()) as any };
}
