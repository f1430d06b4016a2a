import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEntries, type Live, PGLITE, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import { call, cliBuilt, type Elicit, errorOf, httpClient, stdioClient, withElicitation } from './helpers.js';

// Where the client can ask its user, `execute` with a confirmToken asks them too: over stdio with a 2025-era
// elicitation request, over stateless HTTP with the 2026-07-28 input-required round trip.
describe.runIf(cliBuilt('the MCP elicitation suite'))(
  'execute asks the user where the client supports elicitation',
  () => {
    let live: Live;
    let user: TestUser;
    beforeAll(async () => {
      ({ live, user } = await startWithWorkspace(PGLITE));
    });
    afterAll(async () => live?.close());
    const count = async (account: string) =>
      (await live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows
        .length;

    const connect = {
      'stdio, 2025-era elicitation': async () => (await stdioClient(`${live.origin}/v1`, user.apiKey)).client,
      'HTTP, 2026-07-28 input required': () => httpClient(live, user.apiKey, 'socket', 'modern'),
    };

    for (const [name, open] of Object.entries(connect)) {
      it(`${name}: a yes commits, a no changes nothing`, async () => {
        const asked: string[] = [];
        let answer: 'accept' | 'decline' = 'decline';
        const elicit: Elicit = (message) => {
          asked.push(message);
          return answer === 'accept'
            ? { action: 'accept', content: { commit: true } }
            : { action: 'decline' };
        };
        withElicitation(elicit);
        const client = await open();
        try {
          const account = `elicit-${randomUUID().slice(0, 8)}`;
          const sql = insertEntries(2, account);
          const dry = await call(client, 'execute', { sql });
          const declined = await call(client, 'execute', {
            sql,
            confirmToken: dry.structuredContent.confirmToken,
          });
          expect(declined.isError).toBe(true);
          expect(errorOf(declined).error.code).toBe('confirmation_declined');
          expect(asked).toHaveLength(1);
          expect(asked[0]).toContain(sql);
          expect(await count(account)).toBe(0);

          answer = 'accept';
          const again = await call(client, 'execute', { sql });
          const done = await call(client, 'execute', {
            sql,
            confirmToken: again.structuredContent.confirmToken,
          });
          expect(done.isError, JSON.stringify(done)).toBeFalsy();
          expect(done.structuredContent.committed).toBe(true);
          expect(asked).toHaveLength(2);
          expect(await count(account)).toBe(2);
        } finally {
          await client.close();
        }
      });
    }

    it('HTTP, 2025-era: the stateless server cannot ask, so the token alone confirms (no hang)', async () => {
      const asked: string[] = [];
      withElicitation((message) => {
        asked.push(message);
        return { action: 'decline' };
      });
      const client = await httpClient(live, user.apiKey, 'socket', 'legacy');
      try {
        const account = `elicit-legacy-${randomUUID().slice(0, 8)}`;
        const sql = insertEntries(1, account);
        const dry = await call(client, 'execute', { sql });
        const done = await call(client, 'execute', { sql, confirmToken: dry.structuredContent.confirmToken });
        expect(done.structuredContent.committed).toBe(true);
        expect(asked).toEqual([]);
        expect(await count(account)).toBe(1);
      } finally {
        await client.close();
      }
    });
  },
);
