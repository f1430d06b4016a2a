import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHost } from './index.js';

let outbox: string;
let built: Awaited<ReturnType<typeof buildHost>>;
let origin: string;

beforeAll(async () => {
  outbox = await mkdtemp(join(tmpdir(), 'expense-embed-'));
  built = await buildHost({
    databaseUrl: 'memory://',
    publicUrl: 'http://host.test/expense',
    mailOutbox: outbox,
    logLevel: 'silent',
  });
  await built.host.listen({ host: '127.0.0.1', port: 0 });
  const address = built.host.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await built?.close();
  await rm(outbox, { recursive: true, force: true });
});

it('keeps serving the host routes', async () => {
  expect(await (await fetch(`${origin}/`)).json()).toEqual({ app: 'host', expense: '/expense/v1/' });
});

it('serves discovery and sign-in of the mounted API', async () => {
  const discovery = await (await fetch(`${origin}/expense/v1/`)).json();
  expect(discovery.ok).toBe(true);
  expect(discovery.data.auth.bootstrapUrl).toBe('http://host.test/expense/api/agent/send-code');

  const sent = await fetch(`${origin}/expense/api/agent/send-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'embed@example.com' }),
  });
  expect(sent.status).toBe(200);
  const { data } = await sent.json();
  const [file] = await readdir(outbox);
  const mail = JSON.parse(await readFile(join(outbox, file!), 'utf8'));
  const code = /\d{8}/.exec(mail.subject)![0];
  const verified = await fetch(`${origin}/expense/api/agent/verify-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, otpSessionToken: data.otpSessionToken, label: 'embedded' }),
  });
  const body = await verified.json();
  expect(body.data.apiKey).toMatch(/^exp_live_/);
  const me = await fetch(`${origin}/expense/v1/me`, {
    headers: { authorization: `ApiKey ${body.data.apiKey}` },
  });
  expect((await me.json()).data.user.email).toBe('embed@example.com');

  const missing = await fetch(`${origin}/expense/v1/nothing`);
  expect(missing.status).toBe(404);
  expect((await missing.json()).error.code).toBe('not_found');
});
