// A tool call over the key's request limit is the tool's error result (rate_limited, retryable, when to retry),
// which the SDK client reads, not an HTTP 429 its transport throws (issue 22: every refusal, limits included, as
// an error result). Messages other than tool calls keep the 429.
import { PGLITE } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Live, startLive } from '../../sql/test/setup.js';
import { call, type Era, errorOf, httpClient } from './helpers.js';

describe('a tool call over the key’s limit', () => {
  let live: Live;
  beforeAll(async () => {
    live = await startLive(PGLITE, { ratePerDay: 12 });
  });
  afterAll(async () => live?.close());

  it.each(['legacy', 'modern'] as Era[])(
    'is a rate_limited error result for the %s SDK client',
    async (era) => {
      const user = await createUser(live.db);
      const client = await httpClient(live, user.apiKey, 'socket', era);
      try {
        await client.listTools(); // arms the client's output-schema validator
        const outcomes: string[] = [];
        for (let i = 0; i < 12; i++) {
          const result = await call(client, 'list_workspaces'); // throws, failing the test, if the transport throws
          if (!result.isError) {
            outcomes.push('ok');
            continue;
          }
          const refusal = errorOf(result);
          expect(refusal.error).toMatchObject({ code: 'rate_limited', retryable: true });
          expect(refusal.nextAction).toMatch(/Retry-After|retry/i);
          outcomes.push('rate_limited');
        }
        expect(outcomes).toContain('ok');
        expect(outcomes.at(-1)).toBe('rate_limited');
      } finally {
        await client.close();
      }
    },
  );

  it('other messages over the limit still answer 429', async () => {
    const user = await createUser(live.db);
    const headers = {
      accept: 'application/json, text/event-stream',
      authorization: `ApiKey ${user.apiKey}`,
    };
    const statuses: number[] = [];
    for (let id = 0; id < 14; id++) {
      statuses.push(
        (await live.request('POST', '/mcp', { body: { jsonrpc: '2.0', id, method: 'tools/list' }, headers }))
          .status,
      );
    }
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(200));
    expect(statuses.slice(12)).toEqual([429, 429]);
  });
});
