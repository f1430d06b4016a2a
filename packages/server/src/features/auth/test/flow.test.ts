import {
  type Client,
  call,
  codeOf,
  ENGINES,
  lastMailTo,
  pooledEngines,
  removeDir,
  signIn,
  socketClient,
  tempDir,
} from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';

const PUBLIC = 'https://api.example.test';
const AUTH = 'https://auth.example.test';

const engines = [...ENGINES, ...pooledEngines('the HTTP flow through PgBouncer')];

describe.each(engines)('the whole flow on $name', (engine) => {
  let app: FastifyInstance;
  let db: Database;
  let outbox: string;
  let drop: () => Promise<void>;
  let clients: Record<'inject' | 'socket', Client>;

  beforeAll(async () => {
    const target = await engine.open();
    drop = target.drop;
    outbox = await tempDir();
    db = await openDatabase({ databaseUrl: target.url, directUrl: target.directUrl });
    app = await createServer(
      { publicUrl: PUBLIC, authUrl: AUTH, mailOutbox: outbox, logLevel: 'silent' },
      { database: db },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    clients = { inject: injectClient(app), socket: socketClient(`http://127.0.0.1:${port}`) };
  });

  afterAll(async () => {
    await app?.close();
    await db?.close();
    await drop?.();
    await removeDir(outbox);
  });

  for (const transport of ['inject', 'socket'] as const) {
    it(`discovery -> sign-in -> me -> workspaces -> select -> schema (${transport})`, async () => {
      const c = clients[transport];
      for (const path of ['/', '/v1/', '/v1/agent']) {
        const discovery = await c.request('GET', path);
        expect(discovery.status).toBe(200);
        expect(discovery.headers['x-request-id']).toMatch(/^req_/);
        const { data, instructions, actions } = discovery.body;
        expect(data.apiBaseUrl).toBe(`${PUBLIC}/v1`);
        expect(data.auth.bootstrapUrl).toBe(`${AUTH}/api/agent/send-code`);
        expect(data.docs.openapiUrl).toBe(`${PUBLIC}/v1/openapi.json`);
        expect(actions[0]).toMatchObject({
          name: 'send_code',
          method: 'POST',
          url: `${AUTH}/api/agent/send-code`,
          auth: 'none',
        });
        const order = [
          /e-mail address first/,
          /send_code/,
          /spam or junk/,
          /8-digit code/,
          /verify_code/,
          /another code/,
          /outside chat memory/,
          /\/me.*\/workspaces.*select.*\/schema.*SQL/,
          /docs\.guideUrl.*data\.clock/,
          /expense-server fx sync.*--fx-sync/,
          /change history.*GET \/changes.*revert/,
          /MCP.*mcp\.url.*expense mcp/,
        ];
        expect(instructions).toHaveLength(order.length);
        for (const [i, pattern] of order.entries()) expect(instructions[i]).toMatch(pattern);
      }

      const email = `Owner-${transport}@Example.com`;
      const sent = await call(c, AGENT_ROUTES.sendCode, { body: { email } });
      expect(sent.body.data.codeLength).toBe(8);
      expect(Date.parse(sent.body.data.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
      expect(sent.body.actions[0]).toMatchObject({
        name: 'verify_code',
        url: `${AUTH}/api/agent/verify-code`,
      });
      const mail = await lastMailTo(outbox, email.toLowerCase());
      expect(mail.text).toContain('10 minutes');
      expect(mail.html).toContain(codeOf(mail));
      const verified = await call(c, AGENT_ROUTES.verifyCode, {
        body: { code: codeOf(mail), otpSessionToken: sent.body.data.otpSessionToken, label: 'agent' },
      });
      expect(verified.status).toBe(200);
      const key: string = verified.body.data.apiKey;
      expect(key).toMatch(/^exp_live_[A-Za-z0-9_-]{43}$/);
      expect(verified.body.instructions.join(' ')).toMatch(/outside chat memory/);

      // The key is stored only as its SHA-256.
      const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM expense_internal.api_keys');
      expect(JSON.stringify(stored.rows)).not.toContain(key.slice(9));

      const me = await call(c, API_ROUTES.me, { key });
      expect(me.status).toBe(200);
      expect(me.body.data.user.email).toBe(email.toLowerCase());
      expect(me.body.data.connection.label).toBe('agent');
      expect(me.body.data.selectedWorkspaceId).toBeNull();
      expect(me.headers.ratelimit).toMatch(/r=\d+/);
      expect(me.headers['ratelimit-policy']).toContain('q=10;w=1');

      const empty = await call(c, API_ROUTES.workspaces, { key });
      expect(empty.body.data.workspaces).toEqual([]);
      const created = await call(c, API_ROUTES.createWorkspace, { key, body: { name: 'Household' } });
      expect(created.status).toBe(201);
      const workspace = created.body.data.workspace;
      expect(workspace).toMatchObject({ name: 'Household', role: 'owner' });
      const settings = await db.query(
        'SELECT reporting_currency FROM public.workspace_settings WHERE workspace_id = $1',
        [workspace.workspaceId],
      );
      expect(settings.rows).toEqual([{ reporting_currency: 'USD' }]);

      const selected = await call(c, API_ROUTES.selectWorkspace, {
        params: { workspaceId: workspace.workspaceId },
        key,
      });
      expect(selected.status).toBe(200);
      expect(selected.body.data.sqlRequest).toEqual({
        header: 'X-Workspace-Id',
        workspaceId: workspace.workspaceId,
      });
      const listed = await call(c, API_ROUTES.workspaces, { key });
      expect(listed.body.data.workspaces).toEqual([{ ...workspace, selected: true }]);
      expect((await call(c, API_ROUTES.me, { key })).body.data.selectedWorkspaceId).toBe(
        workspace.workspaceId,
      );

      const schema = await call(c, API_ROUTES.schema, { key });
      expect(schema.status).toBe(200);
      const names = schema.body.data.relations.map((r: { name: string }) => r.name).sort();
      expect(names).toEqual([
        'account_metadata',
        'accounts',
        'budget_lines',
        'fx_rates_daily',
        'fx_rates_raw',
        'ledger_entries',
        'workspace_settings',
      ]);
      expect(schema.body.data.functions).toEqual(['SUM', 'COUNT', 'MIN', 'MAX', 'AVG', 'COALESCE']);
      expect(schema.body.data.limits).toMatchObject({
        maxReturnedRows: 100,
        maxAffectedRows: 100,
        deadlineMs: 25_000,
      });
    });
  }

  it('signs up and logs in with the same answer, and a second sign-in is the same user', async () => {
    const c = clients.inject;
    const first = await signIn(c, outbox, 'same@example.com');
    const again = await call(c, AGENT_ROUTES.sendCode, { body: { email: 'same@example.com' } });
    const fresh = await call(c, AGENT_ROUTES.sendCode, {
      body: { email: 'new-person@example.com' },
    });
    expect(Object.keys(again.body.data).sort()).toEqual(Object.keys(fresh.body.data).sort());
    expect(again.body.instructions).toEqual(fresh.body.instructions);
    const code = codeOf(await lastMailTo(outbox, 'same@example.com'));
    const second = await call(c, AGENT_ROUTES.verifyCode, {
      body: { code, otpSessionToken: again.body.data.otpSessionToken, label: 'phone' },
    });
    expect(second.body.data.user.userId).toBe(first.user.userId);
    expect(second.body.data.apiKey).not.toBe(first.apiKey);
  });

  it('voids a challenge after 5 wrong codes, keeps older sessions, refuses used ones and expired codes', async () => {
    const c = clients.socket;
    const email = 'wrong@example.com';
    const sent = await call(c, AGENT_ROUTES.sendCode, { body: { email } });
    const token = sent.body.data.otpSessionToken;
    const right = codeOf(await lastMailTo(outbox, email));
    const wrong = right === '00000000' ? '11111111' : '00000000';
    for (let remaining = 4; remaining >= 0; remaining--) {
      const res = await call(c, AGENT_ROUTES.verifyCode, {
        body: { code: wrong, otpSessionToken: token, label: 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'invalid_code',
        details: { attemptsRemaining: remaining },
      });
    }
    const after = await call(c, AGENT_ROUTES.verifyCode, {
      body: { code: right, otpSessionToken: token, label: 'x' },
    });
    expect(after.body.error.code).toBe('invalid_otp_session');

    // A new code does not void the older one (each is bound to its own session); a used code cannot be used twice.
    const one = await call(c, AGENT_ROUTES.sendCode, { body: { email } });
    const oneCode = codeOf(await lastMailTo(outbox, email));
    const two = await call(c, AGENT_ROUTES.sendCode, { body: { email } });
    const twoCode = codeOf(await lastMailTo(outbox, email));
    const old = await call(c, AGENT_ROUTES.verifyCode, {
      body: { code: oneCode, otpSessionToken: one.body.data.otpSessionToken, label: 'x' },
    });
    expect(old.status).toBe(200);
    const ok = await call(c, AGENT_ROUTES.verifyCode, {
      body: { code: twoCode, otpSessionToken: two.body.data.otpSessionToken, label: 'x' },
    });
    expect(ok.status).toBe(200);
    const reuse = await call(c, AGENT_ROUTES.verifyCode, {
      body: { code: twoCode, otpSessionToken: two.body.data.otpSessionToken, label: 'x' },
    });
    expect(reuse.body.error.code).toBe('invalid_otp_session');

    const late = await call(c, AGENT_ROUTES.sendCode, { body: { email: 'late@example.com' } });
    await db.query(
      "UPDATE expense_internal.otp_challenges SET expires_at = now() - interval '1 second' WHERE lower(email) = 'late@example.com'",
    );
    const expired = await call(c, AGENT_ROUTES.verifyCode, {
      body: {
        code: codeOf(await lastMailTo(outbox, 'late@example.com')),
        otpSessionToken: late.body.data.otpSessionToken,
        label: 'x',
      },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('expired_code');
    expect(expired.body.actions[0].name).toBe('send_code');

    // Codes are stored only as a hash.
    const codes = await db.query('SELECT code_hash FROM expense_internal.otp_challenges');
    expect(JSON.stringify(codes.rows)).not.toContain(twoCode);
  });

  it('limits send-code to 5 per address per hour with Retry-After', async () => {
    const c = clients.inject;
    for (let i = 0; i < 5; i++) {
      expect((await call(c, AGENT_ROUTES.sendCode, { body: { email: 'limited@example.com' } })).status).toBe(
        200,
      );
    }
    const limited = await call(c, AGENT_ROUTES.sendCode, {
      body: { email: 'LIMITED@example.com' },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('lists and revokes keys; a revoked key is refused at once', async () => {
    const c = clients.socket;
    const a = await signIn(c, outbox, 'keys@example.com', 'first');
    const b = await signIn(c, outbox, 'keys@example.com', 'second');
    const list = await call(c, API_ROUTES.keys, { key: a.apiKey });
    expect(list.body.data.keys.map((k: { label: string; current: boolean }) => [k.label, k.current])).toEqual(
      [
        ['first', true],
        ['second', false],
      ],
    );
    expect((await call(c, API_ROUTES.me, { key: b.apiKey })).status).toBe(200); // cached now
    const revoked = await call(c, API_ROUTES.revokeKey, {
      params: { connectionId: b.connection.connectionId },
      key: a.apiKey,
    });
    expect(revoked.status).toBe(204);
    const refused = await call(c, API_ROUTES.me, { key: b.apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    const again = await call(c, API_ROUTES.revokeKey, {
      params: { connectionId: b.connection.connectionId },
      key: a.apiKey,
    });
    expect(again.body.error.code).toBe('not_found');
    const other = await signIn(c, outbox, 'other-keys@example.com');
    const foreign = await call(c, API_ROUTES.revokeKey, {
      params: { connectionId: other.connection.connectionId },
      key: a.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect((await call(c, API_ROUTES.me, { key: other.apiKey })).status).toBe(200);
  });

  it('manages members: invite, accept, forbid non-owners, remove and kill their keys, keep the last owner', async () => {
    const c = clients.inject;
    const owner = await signIn(c, outbox, 'boss@example.com');
    const ws = (await call(c, API_ROUTES.createWorkspace, { key: owner.apiKey, body: { name: 'Shared' } }))
      .body.data.workspace;
    const added = await call(c, API_ROUTES.addMember, {
      params: { workspaceId: ws.workspaceId },
      key: owner.apiKey,
      body: { email: 'Helper@Example.com' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data.member).toMatchObject({
      email: 'helper@example.com',
      role: 'member',
      status: 'invited',
    });
    const helper = await signIn(c, outbox, 'helper@example.com');
    expect(helper.user.userId).toBe(added.body.data.member.userId);
    const helperPhone = await signIn(c, outbox, 'helper@example.com', 'phone');
    // An invitation grants nothing until the invitee accepts it.
    expect((await call(c, API_ROUTES.workspaces, { key: helper.apiKey })).body.data.workspaces).toEqual([]);
    const accepted = await call(c, API_ROUTES.acceptInvitation, {
      params: { workspaceId: ws.workspaceId },
      key: helper.apiKey,
    });
    expect(accepted.status).toBe(200);
    const seen = await call(c, API_ROUTES.workspaces, { key: helper.apiKey });
    expect(seen.body.data.workspaces).toEqual([{ ...ws, role: 'member', selected: false }]);
    const members = await call(c, API_ROUTES.members, {
      params: { workspaceId: ws.workspaceId },
      key: helper.apiKey,
    });
    expect(members.body.data.members.map((m: { email: string }) => m.email)).toEqual([
      'boss@example.com',
      'helper@example.com',
    ]);

    const forbidden = await call(c, API_ROUTES.addMember, {
      params: { workspaceId: ws.workspaceId },
      key: helper.apiKey,
      body: { email: 'x@example.com' },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    const lastOwner = await call(c, API_ROUTES.removeMember, {
      params: { workspaceId: ws.workspaceId, userId: owner.user.userId },
      key: owner.apiKey,
    });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.error.code).toBe('last_owner');

    expect((await call(c, API_ROUTES.me, { key: helperPhone.apiKey })).status).toBe(200);
    const removed = await call(c, API_ROUTES.removeMember, {
      params: { workspaceId: ws.workspaceId, userId: helper.user.userId },
      key: owner.apiKey,
    });
    expect(removed.status).toBe(204);
    for (const key of [helper.apiKey, helperPhone.apiKey]) {
      const dead = await call(c, API_ROUTES.me, { key });
      expect(dead.body.error.code).toBe('invalid_api_key');
    }
    const remaining = await call(c, API_ROUTES.members, {
      params: { workspaceId: ws.workspaceId },
      key: owner.apiKey,
    });
    expect(remaining.body.data.members).toHaveLength(1);

    // Foreign, unknown and malformed workspace ids look the same.
    const stranger = await signIn(c, outbox, 'stranger@example.com');
    for (const id of [ws.workspaceId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await call(c, API_ROUTES.selectWorkspace, {
        params: { workspaceId: id },
        key: stranger.apiKey,
      });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('workspace_not_found');
    }
  });
});
