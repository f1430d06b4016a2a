// Issue 39: an agent that follows discovery's own instructions and actions, mechanically, from a cold start to its
// first successful SQL, and the calls it needed. Each step takes the action the previous answer offers by name
// and fills its body from the action's input schema: nothing is guessed.
// The agent's one known URL is discovery's public one (`${PUBLIC}/v1/`), as the docs give it.
import { codeOf, ENGINES, lastMailTo, removeDir, tempDir } from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';

const PUBLIC = 'https://api.example.test';
const AUTH = 'https://auth.example.test';

interface Action {
  name: string;
  method: string;
  url: string;
  auth: 'none' | 'ApiKey';
  input?: { properties?: Record<string, unknown>; required?: string[] };
}
interface Answer {
  ok: boolean;
  data: Record<string, unknown> & { [k: string]: unknown };
  instructions: string[];
  actions: Action[];
}

describe.each(ENGINES)('from a cold start to the first SQL on $name', (engine) => {
  let app: FastifyInstance;
  let db: Database;
  let outbox: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const target = await engine.open();
    drop = target.drop;
    outbox = await tempDir();
    db = await openDatabase({ databaseUrl: target.url, directUrl: target.directUrl });
    app = await createServer(
      { publicUrl: PUBLIC, authUrl: AUTH, mailOutbox: outbox, logLevel: 'silent' },
      { database: db },
    );
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await drop?.();
    await removeDir(outbox);
  });

  /** An agent's calls: each counted, each an action's method and URL (its origin is this app). */
  function agent() {
    const client = injectClient(app);
    const calls: string[] = [];
    let key: string | undefined;
    const send = async (action: Action, body?: unknown, headers?: Record<string, string>) => {
      calls.push(action.name);
      const url = new URL(action.url);
      const res = await client.request(action.method, `${url.pathname}${url.search}`, {
        ...(action.auth === 'ApiKey' ? { key } : {}),
        ...(body === undefined ? {} : { body }),
        ...(headers ? { headers } : {}),
      });
      return { status: res.status, answer: res.body as Answer };
    };
    return {
      calls,
      send,
      setKey: (k: string) => {
        key = k;
      },
    };
  }
  const named = (answer: Answer, name: string): Action => {
    const action = answer.actions.find((a) => a.name === name);
    if (!action) throw new Error(`no ${name} action in ${JSON.stringify(answer.actions.map((a) => a.name))}`);
    return action;
  };

  it('needs at most 6 calls, and creates the workspace with the currency and time zone asked of the user', async () => {
    const a = agent();
    const email = `first-${engine.name}@example.com`.toLowerCase();
    const discovery = await a.send({ name: 'discover', method: 'GET', url: `${PUBLIC}/v1/`, auth: 'none' });
    expect(discovery.status).toBe(200);
    // Discovery offers create_workspace with its input schema: currency and timeZone are not left to a guess.
    const createAction = named(discovery.answer, 'create_workspace');
    expect(Object.keys(createAction.input?.properties ?? {})).toEqual(['name', 'currency', 'timeZone']);
    expect(discovery.answer.instructions.join(' ')).toMatch(/create_workspace with all three/);

    const sent = await a.send(named(discovery.answer, 'send_code'), { email });
    expect(sent.status).toBe(200);
    const code = codeOf(await lastMailTo(outbox, email));
    const verified = await a.send(named(sent.answer, 'verify_code'), {
      code,
      otpSessionToken: sent.answer.data.otpSessionToken,
      label: 'first-contact test',
    });
    expect(verified.status).toBe(200);
    a.setKey(verified.answer.data.apiKey as string);
    // A new user: verify_code's first action is create_workspace, its instruction asks for the three fields.
    expect(verified.answer.actions[0]?.name).toBe('create_workspace');
    expect(verified.answer.instructions.join(' ')).toMatch(/reporting currency.*time zone.*create_workspace/);

    const required = Object.keys(named(verified.answer, 'create_workspace').input?.properties ?? {});
    const asked: Record<string, string> = { name: 'Household', currency: 'EUR', timeZone: 'Europe/Berlin' };
    const created = await a.send(
      named(verified.answer, 'create_workspace'),
      Object.fromEntries(required.map((field) => [field, asked[field]])),
    );
    expect(created.status).toBe(201);
    expect(created.answer.data.settings).toEqual({ currency: 'EUR', timeZone: 'Europe/Berlin' });
    expect(created.answer.data.defaulted).toBeUndefined();
    expect(created.answer.instructions.join(' ')).toMatch(/only workspace.*without selecting/);

    const schema = await a.send(named(created.answer, 'get_schema'));
    expect(schema.status).toBe(200);
    const query = await a.send(named(created.answer, 'sql_query'), {
      sql: 'SELECT count(*) AS entries FROM ledger_entries',
    });
    expect(query.status, JSON.stringify(query.answer)).toBe(200);
    expect(query.answer.ok).toBe(true);
    expect((query.answer.data as { clock: { timeZone: string } }).clock.timeZone).toBe('Europe/Berlin');

    expect(a.calls).toEqual([
      'discover',
      'send_code',
      'verify_code',
      'create_workspace',
      'get_schema',
      'sql_query',
    ]);
    expect(a.calls.length).toBeLessThanOrEqual(6);
  });

  it('says which settings were defaulted and asks the agent to confirm them with the user', async () => {
    const a = agent();
    const email = `defaults-${engine.name}@example.com`.toLowerCase();
    const discovery = await a.send({ name: 'discover', method: 'GET', url: `${PUBLIC}/v1/`, auth: 'none' });
    const sent = await a.send(named(discovery.answer, 'send_code'), { email });
    const verified = await a.send(named(sent.answer, 'verify_code'), {
      code: codeOf(await lastMailTo(outbox, email)),
      otpSessionToken: sent.answer.data.otpSessionToken,
      label: 'defaults test',
    });
    a.setKey(verified.answer.data.apiKey as string);
    const created = await a.send(named(verified.answer, 'create_workspace'), { name: 'Guessing' });
    expect(created.status).toBe(201);
    expect(created.answer.data.defaulted).toEqual(['currency', 'timeZone']);
    expect(created.answer.data.settings).toEqual({ currency: 'USD', timeZone: 'UTC' });
    expect(created.answer.instructions[0]).toMatch(
      /^currency and timeZone were not given and defaulted \(data\.defaulted\)\. Ask the user/,
    );
    const only = await a.send(named(created.answer, 'select_workspace'));
    expect(only.status).toBe(200);

    // A second workspace is not the only one: its answer says to select it, and only currency was left out.
    const second = await a.send(named(verified.answer, 'create_workspace'), {
      name: 'Berlin flat',
      timeZone: 'Europe/Berlin',
    });
    expect(second.answer.data.defaulted).toEqual(['currency']);
    expect(second.answer.instructions[0]).toMatch(/^currency was not given and defaulted/);
    expect(second.answer.instructions.join(' ')).toMatch(/Select it with POST/);
    expect(second.answer.actions.map((x) => x.name)).not.toContain('sql_query');
  });

  it("names both ways to commit a dry run: the answer's confirmToken and an Idempotency-Key", async () => {
    const a = agent();
    const email = `dry-${engine.name}@example.com`.toLowerCase();
    const discovery = await a.send({ name: 'discover', method: 'GET', url: `${PUBLIC}/v1/`, auth: 'none' });
    const sent = await a.send(named(discovery.answer, 'send_code'), { email });
    const verified = await a.send(named(sent.answer, 'verify_code'), {
      code: codeOf(await lastMailTo(outbox, email)),
      otpSessionToken: sent.answer.data.otpSessionToken,
      label: 'dry-run test',
    });
    a.setKey(verified.answer.data.apiKey as string);
    const created = await a.send(named(verified.answer, 'create_workspace'), {
      name: 'Home',
      currency: 'EUR',
      timeZone: 'Europe/Berlin',
    });
    const execute = named(created.answer, 'sql_query');
    const sql =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-08-01 00:30:00+02', 'checking', -900, 'EUR', 'spend', 'rent')";
    const dry = await a.send(
      { ...execute, name: 'sql_execute', url: execute.url.replace(/query$/, 'execute') },
      {
        sql,
        dryRun: true,
      },
    );
    expect(dry.status, JSON.stringify(dry.answer)).toBe(200);
    expect(dry.answer.data.confirmToken).toEqual(expect.any(String));
    const said = dry.answer.instructions.join(' ');
    expect(said).toMatch(/"confirmToken": data\.confirmToken/);
    expect(said).toMatch(/Idempotency-Key/);
    // The first way, as the instruction words it: the same request without dryRun, with the token.
    const committed = await a.send(
      { ...execute, name: 'sql_execute', url: execute.url.replace(/query$/, 'execute') },
      { sql, confirmToken: dry.answer.data.confirmToken },
    );
    expect(committed.status, JSON.stringify(committed.answer)).toBe(200);
    expect(committed.answer.data.committed).toBe(true);
  });
});
