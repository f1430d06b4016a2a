// The OAuth 2.1 authorization server for /mcp, driven over HTTP on a listening server as a remote MCP client
// does: registration, authorization with PKCE, the consent form, tokens, an MCP call with the bearer token,
// refresh with rotation and reuse detection, revocation — on both engines (the grants live in the database).

import { call, codeOf, lastMailTo, removeDir, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import {
  type ConsentChoice,
  consentInBrowser,
  consoleCookie,
  pkce,
  REDIRECT_URI,
  tokenRequest,
} from './helpers.js';

describe.each(ENGINES)('OAuth for /mcp on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let home: string;
  let other: string;
  let cookie: string;
  let clientId: string;

  let outbox: string;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox });
    user = await createUser(live.db);
    home = await addWorkspace(live.db, user.userId, 'Home');
    other = await addWorkspace(live.db, user.userId, 'Shop');
    cookie = await consoleCookie(live.db, user.userId, live.origin);
    const reg = await live.request('POST', '/oauth/register', {
      body: { client_name: 'Test agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
    });
    expect(reg.status).toBe(201);
    clientId = reg.body.client_id;
  });
  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  const authorizeUrl = (challenge: string, extra: Record<string, string> = {}) =>
    `${live.origin}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-1',
      scope: 'openid expense:read expense:write',
      resource: `${live.origin}/mcp`,
      ...extra,
    })}`;

  /** The whole browser part: returns the code and the verifier. */
  async function authorize(choice: ConsentChoice = {}) {
    const { verifier, challenge } = pkce();
    const back = await consentInBrowser(live.origin, authorizeUrl(challenge), cookie, choice);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(live.origin);
    return { code: back.searchParams.get('code') ?? '', verifier };
  }

  async function tokens(choice: ConsentChoice = {}) {
    const { code, verifier } = await authorize(choice);
    const res = await tokenRequest(live.origin, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      resource: `${live.origin}/mcp`,
    });
    expect(res.status).toBe(200);
    return res.body as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
      token_type: string;
    };
  }

  const mcpStatus = async (token: string) =>
    (
      await live.request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      })
    ).status;

  it('publishes RFC 8414 and RFC 9728 metadata that point at each other', async () => {
    const as = await live.request('GET', '/.well-known/oauth-authorization-server');
    expect(as.status).toBe(200);
    expect(as.body.issuer).toBe(live.origin);
    expect(as.body.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.body.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.body.client_id_metadata_document_supported).toBe(true);
    // Browser-based clients may read the metadata and call the token endpoint across origins.
    expect(as.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${live.origin}/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const prm = await live.request('GET', path);
      expect(prm.body.authorization_servers).toEqual([live.origin]);
      expect(prm.body.resource).toBe(`${live.origin}/mcp`);
    }
  });

  it('runs the whole flow: token, an MCP tool call with the bearer token, listed among the keys', async () => {
    const t = await tokens();
    expect(t.token_type).toBe('Bearer');
    expect(t.expires_in).toBeGreaterThan(0);
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${live.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.access_token}` } },
      }),
    );
    const result = (await client.callTool({ name: 'list_workspaces', arguments: {} })) as {
      structuredContent: { workspaces: { workspaceId: string }[] };
    };
    expect(result.structuredContent.workspaces.map((w) => w.workspaceId).sort()).toEqual(
      [home, other].sort(),
    );
    await client.close();

    const keys = await call(live, API_ROUTES.keys, { key: user.apiKey });
    const oauth = keys.body.data.keys.filter((k: { kind: string }) => k.kind === 'oauth');
    expect(oauth).toHaveLength(1);
    expect(oauth[0]).toMatchObject({
      label: 'Test agent',
      access: 'read_write',
      workspaceId: null,
      client: { clientId, name: 'Test agent' },
    });
    // The connection's expiry is the grant's (the lifetime chosen, 30 days), not the hourly access token's.
    expect(Date.parse(oauth[0].expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    // Listed while the access token is expired too (the client refreshes when it comes back).
    await live.db.query(
      "UPDATE expense_internal.api_keys SET expires_at = now() - interval '1 second' WHERE connection_id = $1",
      [oauth[0].connectionId],
    );
    const later = await call(live, API_ROUTES.keys, { key: user.apiKey });
    expect(later.body.data.keys.map((k: { connectionId: string }) => k.connectionId)).toContain(
      oauth[0].connectionId,
    );
    // Revoked like every key: DELETE /v1/keys ends it at once, and its refresh token with it.
    const del = await call(live, API_ROUTES.revokeKey, {
      params: { connectionId: oauth[0].connectionId },
      key: user.apiKey,
    });
    expect(del.status).toBe(204);
    expect(await mcpStatus(t.access_token)).toBe(401);
    const refresh = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('rotates refresh tokens, and a reused one revokes the whole grant', async () => {
    const t1 = await tokens();
    const r1 = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: t1.refresh_token,
      client_id: clientId,
    });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(t1.refresh_token);
    // The old access token was replaced in place; the new one works.
    expect(await mcpStatus(t1.access_token)).toBe(401);
    expect(await mcpStatus(r1.body.access_token)).toBe(200);
    // The first refresh token again: reuse, so the grant ends — the newest tokens too.
    const reuse = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: t1.refresh_token,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect(await mcpStatus(r1.body.access_token)).toBe(401);
    const after = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: r1.body.refresh_token,
      client_id: clientId,
    });
    expect(after.body.error).toBe('invalid_grant');
  });

  it('revokes through the revocation endpoint (RFC 7009): the API answers 401 at once', async () => {
    const t = await tokens();
    expect(await mcpStatus(t.access_token)).toBe(200);
    const res = await fetch(`${live.origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t.access_token, client_id: clientId }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(t.access_token)).toBe(401);
    expect((await call(live, API_ROUTES.me, { key: t.access_token })).status).toBe(401);
  });

  it('answers invalid_client (401) to a malformed Basic header, and invalid_request to a repeated parameter', async () => {
    const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
    for (const authorization of [
      basic('no-colon-here'),
      basic(`${clientId}:%E0%A4%A`),
      basic('%zz:secret'),
    ]) {
      for (const path of ['/oauth/token', '/oauth/revoke']) {
        const res = await fetch(`${live.origin}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: 'x',
            token: 'x',
          }).toString(),
        });
        expect(res.status, `${path} with ${authorization}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
      }
    }
    const repeated = await fetch(`${live.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=a&code=b&client_id=${clientId}`,
    });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as { error: string }).error).toBe('invalid_request');
    // On the consent page's side, a repeated parameter is an error page, not a redirect anywhere.
    const { challenge } = pkce();
    const page = await fetch(`${authorizeUrl(challenge)}&client_id=${clientId}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('invalid_request');
  });

  it('refuses a code used twice and revokes what the first use issued', async () => {
    const { code, verifier } = await authorize();
    const params = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId };
    const first = await tokenRequest(live.origin, params);
    expect(first.status).toBe(200);
    const second = await tokenRequest(live.origin, params);
    expect(second.body.error).toBe('invalid_grant');
    expect(await mcpStatus(first.body.access_token)).toBe(401);
  });

  it('refuses an expired code, a wrong verifier, and a wrong resource', async () => {
    const a = await authorize();
    await live.db.query("UPDATE expense_internal.oauth_codes SET expires_at = now() - interval '1 second'");
    const expired = await tokenRequest(live.origin, {
      grant_type: 'authorization_code',
      code: a.code,
      code_verifier: a.verifier,
      client_id: clientId,
    });
    expect(expired.body.error).toBe('invalid_grant');

    const b = await authorize();
    const wrongVerifier = await tokenRequest(live.origin, {
      grant_type: 'authorization_code',
      code: b.code,
      code_verifier: pkce().verifier,
      client_id: clientId,
    });
    expect(wrongVerifier.body.error).toBe('invalid_grant');

    const c = await authorize();
    const wrongResource = await tokenRequest(live.origin, {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      client_id: clientId,
      resource: 'https://elsewhere.example/mcp',
    });
    expect(wrongResource.body.error).toBe('invalid_target');

    const back = await fetch(authorizeUrl(pkce().challenge, { resource: 'https://elsewhere.example/mcp' }), {
      redirect: 'manual',
    });
    const location = new URL(back.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.get('iss')).toBe(live.origin);
  });

  it('refuses a token whose audience is another resource', async () => {
    const t = await tokens();
    await live.db.query(
      "UPDATE expense_internal.oauth_grants SET resource = 'https://elsewhere.example/mcp' WHERE revoked_at IS NULL",
    );
    // The verified-key cache holds the principal for a few seconds; a fresh refresh re-reads it.
    const r = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: clientId,
    });
    expect(r.status).toBe(200);
    expect(await mcpStatus(r.body.access_token)).toBe(401);
    expect((await call(live, API_ROUTES.me, { key: r.body.access_token })).status).toBe(401);
  });

  it('requires PKCE S256 and answers invalid_client to an unknown client', async () => {
    const plain = await fetch(authorizeUrl('x'.repeat(43), { code_challenge_method: 'plain' }), {
      redirect: 'manual',
    });
    expect(new URL(plain.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
    const unknown = await tokenRequest(live.origin, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: 'ocl_gone',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const page = await fetch(authorizeUrl('y'.repeat(43), { client_id: 'ocl_gone' }), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');
  });

  it('enforces the consent: a read-only token may only read, a bound one reaches its workspace only', async () => {
    const read = await tokens({ access: 'read', workspace: home });
    const key = read.access_token;
    const bearer = { authorization: `Bearer ${key}` };
    const query = await call(live, API_ROUTES.sqlQuery, {
      body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
      headers: bearer,
    });
    expect(query.status).toBe(200);
    const execute = await call(live, API_ROUTES.sqlExecute, {
      body: { sql: "DELETE FROM ledger_entries WHERE account_id = 'x'" },
      headers: bearer,
    });
    expect(execute.status).toBe(403);
    expect(execute.body.error.code).toBe('forbidden');
    expect(execute.body.error.hint).toContain('read');
    const create = await call(live, API_ROUTES.createWorkspace, { body: { name: 'New' }, headers: bearer });
    expect(create.status).toBe(403);

    const elsewhere = await call(live, API_ROUTES.sqlQuery, {
      body: { sql: 'SELECT 1 AS one' },
      headers: { ...bearer, 'x-workspace-id': other },
    });
    expect(elsewhere.status).toBe(403);
    const list = await call(live, API_ROUTES.workspaces, { headers: bearer });
    expect(list.body.data.workspaces.map((w: { workspaceId: string }) => w.workspaceId)).toEqual([home]);
    const select = await call(live, API_ROUTES.selectWorkspace, {
      params: { workspaceId: other },
      headers: bearer,
    });
    expect(select.status).toBe(403);

    // Over MCP the same consent shapes the tools: no execute tool, the workspace pinned, others refused.
    const client = new Client({ name: 'oauth-read', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${live.origin}/mcp`), {
        requestInit: { headers: bearer },
      }),
    );
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('query');
    expect(tools).not.toContain('execute');
    const listed = (await client.callTool({ name: 'list_workspaces', arguments: {} })) as {
      structuredContent: { readOnly: boolean; pinnedWorkspaceId: string; workspaces: unknown[] };
    };
    expect(listed.structuredContent).toMatchObject({ readOnly: true, pinnedWorkspaceId: home });
    expect(listed.structuredContent.workspaces).toHaveLength(1);
    const foreign = (await client.callTool({
      name: 'query',
      arguments: { sql: 'SELECT 1 AS one', workspaceId: other },
    })) as { isError?: boolean };
    expect(foreign.isError).toBe(true);
    await client.close();
  });

  it('validates registrations and limits them per address', async () => {
    const bad = await live.request('POST', '/oauth/register', {
      body: { client_name: 'Bad', redirect_uris: ['http://evil.example/cb'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_redirect_uri');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await live.request('POST', '/oauth/register', {
        body: { client_name: `Flood ${i}`, redirect_uris: [REDIRECT_URI] },
      });
      statuses.push(res.status);
    }
    // 20 per hour and address: the one in beforeAll, the refused one, and 18 more; then 429.
    expect(statuses.filter((s) => s === 201)).toHaveLength(18);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });

  it('sends a signed-out browser through the console sign-in and back to the consent', async () => {
    const { verifier, challenge } = pkce();
    const first = await fetch(authorizeUrl(challenge), { redirect: 'manual' });
    const next = (/url=([^"]+)"/.exec(await first.text())?.[1] ?? '').replace(/&amp;/g, '&');
    const toSignIn = await fetch(`${live.origin}${next}`, { redirect: 'manual' });
    expect(toSignIn.status).toBe(303);
    const signInPath = toSignIn.headers.get('location') ?? '';
    const returnTo = new URL(signInPath, live.origin).searchParams.get('return_to') ?? '';
    expect(returnTo).toBe(next);
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { origin: live.origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual' as const,
    });
    const sent = await fetch(
      `${live.origin}/console/sign-in`,
      form({ email: user.email, return_to: returnTo }),
    );
    const sentPage = await sent.text();
    const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(sentPage)?.[1] ?? '';
    const code = codeOf(await lastMailTo(outbox, user.email));
    const signedIn = await fetch(
      `${live.origin}/console/sign-in/code`,
      form({
        email: user.email,
        code,
        otp_session_token: hidden('otp_session_token'),
        return_to: hidden('return_to').replace(/&amp;/g, '&'),
      }),
    );
    expect(signedIn.status).toBe(303);
    const sessionCookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const back = signedIn.headers.get('location') ?? '';
    expect(back).toBe(next);
    // The consent page, now with the session: same flow as any signed-in browser.
    const redirect = await consentInBrowser(live.origin, authorizeUrl(challenge), sessionCookie);
    const t = await tokenRequest(live.origin, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code') ?? '',
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(t.status).toBe(200);
    expect(await mcpStatus(t.body.access_token)).toBe(200);
  });

  it('protects the consent form: another origin, or a forged CSRF token, is refused', async () => {
    const { challenge } = pkce();
    const first = await fetch(authorizeUrl(challenge), { redirect: 'manual' });
    const next = /url=([^"]+)"/.exec(await first.text())?.[1] ?? '';
    const requestId = new URL(next, live.origin).searchParams.get('request') ?? '';
    expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
    // Without the session cookie: off to the console's sign-in, coming back here.
    const anon = await fetch(`${live.origin}${next}`, { redirect: 'manual' });
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toContain('/console/sign-in?return_to=');
    const post = (origin: string, csrf: string) =>
      fetch(`${live.origin}/oauth/consent`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          request: requestId,
          csrf,
          access: 'read_write',
          workspace: 'all',
          lifetime: '30',
          decision: 'approve',
        }).toString(),
        redirect: 'manual',
      });
    expect((await post('https://evil.example', 'x')).status).toBe(403);
    expect((await post(live.origin, 'forged')).status).toBe(403);
  });
});
