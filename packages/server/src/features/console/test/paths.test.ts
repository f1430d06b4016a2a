// The console's protections do not depend on how a path is spelled (issue 21, item 6). Fastify matches a route
// on the decoded path, so `/%63onsole/sign-out` is the sign-out route; before, the Origin check and the CSP
// were decided by a prefix of the raw URL and skipped for it (logout CSRF, login CSRF, framing). Both engines
// (the session is a key in the database).

import { ENGINES } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleApp, consoleApp } from './console-app.js';

/** Other spellings of /console that Fastify routes to the console's handlers. */
const SPELLINGS = ['/%63onsole', '/c%6Fnsole', '/consol%65'];

describe.each(ENGINES)('console paths on $name', (engine) => {
  let served: ConsoleApp;

  beforeAll(async () => {
    served = await consoleApp(engine);
  });
  afterAll(async () => served?.close());

  const session = () => served.session();

  const revoked = async (connectionId: string) =>
    (
      await served.db.query<{ revoked: boolean }>(
        'SELECT revoked_at IS NOT NULL AS revoked FROM expense_internal.api_keys WHERE connection_id = $1',
        [connectionId],
      )
    ).rows[0]!.revoked;

  it('attack: a sign-out posted from another site to another spelling is refused (logout CSRF)', async () => {
    for (const base of SPELLINGS) {
      const { cookie, connectionId } = await session();
      const res = await served.app.inject({
        method: 'POST',
        url: `${base}/sign-out`,
        headers: { cookie, origin: 'https://evil.example' },
      });
      expect(res.statusCode, base).toBe(403);
      expect(await revoked(connectionId), base).toBe(false);
    }
  });

  it('attack: a sign-in form posted from another site to another spelling sends no code (login CSRF)', async () => {
    for (const base of SPELLINGS) {
      const res = await served.app.inject({
        method: 'POST',
        url: `${base}/sign-in`,
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: 'csrf@example.com' }).toString(),
      });
      expect(res.statusCode, base).toBe(403);
    }
    const mails = await served.db.query('SELECT 1 FROM expense_internal.otp_challenges WHERE email = $1', [
      'csrf@example.com',
    ]);
    expect(mails.rows).toEqual([]);
  });

  it('attack: every spelling of a console page carries the CSP that forbids framing', async () => {
    for (const base of SPELLINGS) {
      for (const path of ['/sign-in', '/']) {
        const res = await served.app.inject({ method: 'GET', url: `${base}${path}` });
        expect(res.statusCode, `${base}${path}`).not.toBe(404);
        expect(res.headers['content-security-policy'], `${base}${path}`).toContain("frame-ancestors 'none'");
        expect(res.headers['x-content-type-options'], `${base}${path}`).toBe('nosniff');
      }
    }
  });

  it('the proxy forwards by the matched route: another spelling reaches the same API route, checked alike', async () => {
    const { cookie } = await session();
    for (const base of SPELLINGS) {
      const me = await served.app.inject({ method: 'GET', url: `${base}/api/me`, headers: { cookie } });
      expect(me.statusCode, base).toBe(200);
      expect(me.headers['content-security-policy'], base).toContain("frame-ancestors 'none'");
      const write = await served.app.inject({
        method: 'POST',
        url: `${base}/api/workspaces`,
        headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
        payload: { name: 'Forged' },
      });
      expect(write.statusCode, base).toBe(403);
    }
    const sameOrigin = await served.app.inject({
      method: 'GET',
      url: '/console/api/workspaces?x=%2F',
      headers: { cookie },
    });
    expect(sameOrigin.statusCode).toBe(200);
  });
});
