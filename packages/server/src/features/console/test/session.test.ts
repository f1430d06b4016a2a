// The console session: sign-in with server-rendered forms (no JavaScript), a console-kind key in an HttpOnly
// cookie, the same-origin proxy to /v1 with an Origin check, and sign-out revoking the key.

import { codeOf, lastMailTo, migratedPostgres, removeDir, tempDir } from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { invitationMail } from '../../invitations/mail.js';
import { safeReturnTo, signInUrl } from '../session.js';

const ORIGIN = 'http://console.example.test';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no ${name} in the page`);
  return match[1]!;
}

describe('console session', () => {
  let drop: () => Promise<void>;
  let outbox: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    const fresh = await migratedPostgres();
    drop = fresh.drop;
    outbox = await tempDir();
    app = await createServer({
      databaseUrl: fresh.url,
      publicUrl: ORIGIN,
      mailOutbox: outbox,
      logLevel: process.env.LOGS ? 'error' : 'silent',
    });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
    await removeDir(outbox);
  });

  async function signIn(
    email: string,
    returnTo = '/console/',
  ): Promise<{ cookie: string; location: string }> {
    const first = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email, return_to: returnTo }),
    });
    expect(first.statusCode).toBe(200);
    const token = hidden(first.body, 'otp_session_token');
    const code = codeOf(await lastMailTo(outbox, email));
    const second = await app.inject({
      method: 'POST',
      url: '/console/sign-in/code',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email, code, otp_session_token: token, return_to: hidden(first.body, 'return_to') }),
    });
    expect(second.statusCode, second.body).toBe(303);
    const setCookie = String(second.headers['set-cookie']);
    expect(setCookie).toMatch(/^expense_console=exp_live_/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain(`Max-Age=${12 * 3600}`);
    return { cookie: setCookie.split(';')[0]!, location: String(second.headers.location) };
  }

  it('sends a browser without a session to sign-in, and back afterwards', async () => {
    const home = await app.inject({ method: 'GET', url: '/console/' });
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe('/console/sign-in?return_to=%2Fconsole%2F');
    const page = await app.inject({ method: 'GET', url: String(home.headers.location) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('<label for="email">');
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);

    const { cookie, location } = await signIn('ada@example.com', '/console/#/keys');
    expect(location).toBe('/console/#/keys');
    const shell = await app.inject({ method: 'GET', url: '/console/', headers: { cookie } });
    expect(shell.statusCode).toBe(200);
    expect(shell.body).toContain('src="/console/assets/app.js"');
  });

  it('calls the API with the session key through the proxy; the key is a console key with a lifetime', async () => {
    const { cookie } = await signIn('bea@example.com');
    const me = await app.inject({ method: 'GET', url: '/console/api/me', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.user.email).toBe('bea@example.com');
    const keys = await app.inject({ method: 'GET', url: '/console/api/keys', headers: { cookie } });
    expect(keys.json().data.keys.map((k: { label: string }) => k.label)).toEqual(['Console session']);
    const noSession = await app.inject({ method: 'GET', url: '/console/api/me' });
    expect(noSession.statusCode).toBe(401);
    expect(noSession.json().error.code).toBe('missing_api_key');
  });

  it('refuses a state-changing call from another origin or without one', async () => {
    const { cookie } = await signIn('cai@example.com');
    const payload = JSON.stringify({ name: 'Household' });
    for (const origin of ['https://evil.example', undefined]) {
      const res = await app.inject({
        method: 'POST',
        url: '/console/api/workspaces',
        headers: { cookie, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        payload,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
      expect(res.json().error.hint).toContain(ORIGIN);
    }
    const list = await app.inject({ method: 'GET', url: '/console/api/workspaces', headers: { cookie } });
    expect(list.json().data.workspaces).toEqual([]);
    const ok = await app.inject({
      method: 'POST',
      url: '/console/api/workspaces',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
      payload,
    });
    expect(ok.statusCode).toBe(201);
  });

  it('refuses a sign-in form posted from another origin (login CSRF), sending no mail', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email: 'csrf@example.com' }),
    });
    expect(res.statusCode).toBe(403);
    await expect(lastMailTo(outbox, 'csrf@example.com')).rejects.toThrow('no mail');
  });

  it('writes an invitation mail that names the inviter and workspace and links the console, escaped', () => {
    const mail = invitationMail({
      to: 'bob@example.com',
      workspaceName: 'Home <&> "Co"',
      invitedBy: 'alice@example.com',
      consoleUrl: `${ORIGIN}/console/`,
    });
    expect(mail.subject).toBe('alice@example.com invited you to “Home <&> "Co"” on Expense');
    expect(mail.text).toContain(`sign in at ${ORIGIN}/console/ with this e-mail address (bob@example.com)`);
    expect(mail.html).toContain(`<a href="${ORIGIN}/console/">`);
    expect(mail.html).toContain('Home &lt;&amp;&gt; &quot;Co&quot;');
    expect(mail.html).not.toContain('<&>');
    expect(`${mail.text}${mail.html}`).not.toMatch(/exp_live_|\b\d{8}\b/); // no key, no code
  });

  it('no longer serves report SQL: the reports page reads GET /v1/reports', async () => {
    const gone = await app.inject({
      method: 'GET',
      url: '/console/report-sql?kind=monthly_trend&from=2026-08-01&to=2026-10-31',
    });
    expect(gone.statusCode).toBe(404);
  });

  it('signs out by revoking the key: the cookie answers 401 at once', async () => {
    const { cookie } = await signIn('dan@example.com');
    // The key is verified and cached first: sign-out must make this process forget it in the same call.
    const before = await app.inject({ method: 'GET', url: '/console/api/me', headers: { cookie } });
    expect(before.statusCode).toBe(200);
    const out = await app.inject({
      method: 'POST',
      url: '/console/sign-out',
      headers: { cookie, origin: ORIGIN },
    });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const me = await app.inject({ method: 'GET', url: '/console/api/me', headers: { cookie } });
    expect(me.statusCode).toBe(401);
    expect(me.json().error.code).toBe('invalid_api_key');
    const home = await app.inject({ method: 'GET', url: '/console/', headers: { cookie } });
    expect(home.statusCode).toBe(303);
  });

  it('shows a wrong code with its hint, without JavaScript', async () => {
    const first = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email: 'eve@example.com' }),
    });
    const res = await app.inject({
      method: 'POST',
      url: '/console/sign-in/code',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        email: 'eve@example.com',
        code: '00000000',
        otp_session_token: hidden(first.body, 'otp_session_token'),
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain('The code is not correct.');
    // Written for the person at the form, not the catalogue's words for an agent ("Ask the user to…").
    expect(res.body).toContain('Check the 8-digit code in the e-mail and type it again.');
    expect(res.body).not.toMatch(/ask the user/i);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('returns only to same-origin paths (no open redirect)', () => {
    for (const bad of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/console/\nSet-Cookie:x',
      'console/',
      '',
    ]) {
      expect(safeReturnTo(bad)).toBe('/console/');
    }
    expect(safeReturnTo('/oauth/authorize?client_id=a&state=b')).toBe('/oauth/authorize?client_id=a&state=b');
    expect(signInUrl('//evil.example')).toBe('/console/sign-in?return_to=%2Fconsole%2F');
  });
});
