import { randomUUID } from 'node:crypto';
import { pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  insertEntries,
  type Live,
  startWithWorkspace,
  type TestUser,
} from './setup.js';

describe.each([...ENGINES, ...pooledEngines('the idempotency tests through PgBouncer')])(
  'Idempotency-Key on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;

    beforeAll(async () => {
      // Several requests with one key at once (the replay race): the in-flight limits (test/fairness) are
      // raised here so that only idempotency decides.
      ({ live, user } = await startWithWorkspace(engine, {
        maxInflightPerKey: 100,
        maxInflightPerUser: 100,
      }));
    });
    afterAll(async () => live?.close());

    const post = (path: string, body: unknown, key: string, apiKey = user.apiKey) =>
      live.request('POST', path, { key: apiKey, body, headers: { 'idempotency-key': key } });
    const rowsOf = async (account: string) =>
      (await live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows
        .length;

    it('replays the kept response byte for byte and runs nothing', async () => {
      const key = randomUUID();
      const body = { sql: `${insertEntries(2, 'idem-replay')} RETURNING amount` };
      const first = await post(routePath(API_ROUTES.sqlExecute), body, key);
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await post(routePath(API_ROUTES.sqlExecute), body, key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect(again.headers.get('ratelimit')).toMatch(/^"burst";r=/);
      expect(await rowsOf('idem-replay')).toBe(2);
    });

    it('answers 409 idempotency_key_reused for the same key with another request', async () => {
      const key = randomUUID();
      await post(routePath(API_ROUTES.sqlScript), { sql: insertEntries(1, 'idem-reused') }, key);
      for (const [path, body] of [
        [routePath(API_ROUTES.sqlScript), { sql: insertEntries(1, 'idem-reused-2') }],
        [routePath(API_ROUTES.sqlScript), { sql: insertEntries(1, 'idem-reused'), dryRun: true }],
        [routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'idem-reused') }],
      ] as const) {
        const res = await post(path, body, key);
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('idempotency_key_reused');
      }
      expect(await rowsOf('idem-reused')).toBe(1);
      expect(await rowsOf('idem-reused-2')).toBe(0);
    });

    it('keeps keys per ApiKey', async () => {
      const other = await createUser(live.db);
      await addWorkspace(live.db, other.userId);
      const key = randomUUID();
      const mine = await post(
        routePath(API_ROUTES.sqlExecute),
        { sql: insertEntries(1, 'idem-per-key') },
        key,
      );
      const theirs = await post(
        routePath(API_ROUTES.sqlExecute),
        { sql: insertEntries(1, 'idem-per-key') },
        key,
        other.apiKey,
      );
      expect([mine.status, theirs.status]).toEqual([200, 200]);
      expect(theirs.headers.get('idempotent-replayed')).toBeNull();
      expect(await rowsOf('idem-per-key')).toBe(2);
    });

    it('never runs two concurrent requests with one key', async () => {
      const key = randomUUID();
      const body = { sql: `${insertEntries(3, 'idem-race')} RETURNING amount` };
      const results = await Promise.all(
        Array.from({ length: 6 }, () => post(routePath(API_ROUTES.sqlScript), body, key)),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
      expect(new Set(results.map((r) => r.text)).size).toBe(1);
      expect(await rowsOf('idem-race')).toBe(3);
    });

    it('keeps a refusal of the database, and gives the key back after a dry run only to the same request', async () => {
      const key = randomUUID();
      const bad = {
        sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'idem-bad', 1, 'euro', 'spend')",
      };
      const first = await post(routePath(API_ROUTES.sqlExecute), bad, key);
      expect(first.status).toBe(400);
      expect(first.body.error.code).toBe('sql_execution_failed');
      const again = await post(routePath(API_ROUTES.sqlExecute), bad, key);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);

      const dryKey = randomUUID();
      const dry = { sql: insertEntries(1, 'idem-dry'), dryRun: true };
      const d1 = await post(routePath(API_ROUTES.sqlScript), dry, dryKey);
      const d2 = await post(routePath(API_ROUTES.sqlScript), dry, dryKey);
      expect(d1.body.data.committed).toBe(false);
      expect(d2.headers.get('idempotent-replayed')).toBe('true');
      expect(await rowsOf('idem-dry')).toBe(0);
    });

    it('does not claim a key for a request the guard refuses, and refuses malformed keys', async () => {
      const key = randomUUID();
      const refused = await post(routePath(API_ROUTES.sqlExecute), { sql: 'DROP TABLE ledger_entries' }, key);
      expect(refused.body.error.code).toBe('statement_not_allowed');
      const fixed = await post(
        routePath(API_ROUTES.sqlExecute),
        { sql: insertEntries(1, 'idem-fixed') },
        key,
      );
      expect(fixed.status).toBe(200);
      for (const bad of ['', 'a b', 'x'.repeat(256), 'ключ']) {
        const res = await live
          .request('POST', routePath(API_ROUTES.sqlExecute), {
            key: user.apiKey,
            body: { sql: insertEntries(1, 'idem-badkey') },
            headers: { 'idempotency-key': encodeURIComponent(bad) === bad ? bad : bad },
          })
          .catch(() => undefined);
        if (!res) continue; // fetch refuses non-Latin-1 header values itself
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
      expect(await rowsOf('idem-badkey')).toBe(0);
    });
  },
);
