// OAuth grants are keys (issue 21, item 5): each consent mints an access token with its own rate limits, so
// consents count toward the live-key cap and the minting rate of POST /v1/keys. Before, one console session
// minted 120 keys in 16 s through consents. Both engines.

import { call, removeDir, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_CAPS } from '../../auth/key-caps.js';
import { createUser, ENGINES, type Live, startLive, type TestUser } from '../../sql/test/setup.js';
import { consentInBrowser, consoleCookie, pkce, REDIRECT_URI } from './helpers.js';

describe.each(ENGINES)('OAuth grants under the key caps on $name', (engine) => {
  let live: Live;
  let outbox: string;
  let clientId: string;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox });
    const reg = await live.request('POST', '/oauth/register', {
      body: {
        client_name: 'Minting agent',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      },
    });
    expect(reg.status).toBe(201);
    clientId = reg.body.client_id;
  });
  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  /** One consent through the browser's steps; the redirect's code, or the refusal's status and page. */
  async function consent(cookie: string): Promise<{ code: string } | { refused: string }> {
    const { challenge } = pkce();
    const url = `${live.origin}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${live.origin}/mcp`,
    })}`;
    try {
      const back = await consentInBrowser(live.origin, url, cookie);
      return { code: back.searchParams.get('code') ?? '' };
    } catch (error) {
      return { refused: (error as Error).message };
    }
  }

  const grantsOf = async (user: TestUser) =>
    (
      await live.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM expense_internal.oauth_grants WHERE user_id = $1',
        [user.userId],
      )
    ).rows[0]!.n;

  it('attack: consents mint no more keys an hour than POST /v1/keys may', async () => {
    const user = await createUser(live.db);
    const cookie = await consoleCookie(live.db, user.userId, live.origin);
    const outcomes = [];
    for (let i = 0; i < KEY_CAPS.createdPerHour + 3; i++) outcomes.push(await consent(cookie));
    // The user's agent key, created this hour, took one place.
    const granted = KEY_CAPS.createdPerHour - 1;
    expect(outcomes.filter((o) => 'code' in o)).toHaveLength(granted);
    const refused = outcomes.filter((o): o is { refused: string } => 'refused' in o);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.refused).toMatch(/answered 429/);
    expect(refused[0]!.refused).toMatch(/revoke/i);
    expect(await grantsOf(user)).toBe(granted);
    // And the grants count for POST /v1/keys too.
    const minted = await call(live, API_ROUTES.createKey, { key: user.apiKey, body: { label: 'one more' } });
    expect(minted.status).toBe(429);
    expect(minted.body.error.details).toMatchObject({
      policy: 'new-keys-per-user-hour',
      count: KEY_CAPS.createdPerHour,
    });
  });

  it('counts live grants (with or without their access token) toward the live-key cap', async () => {
    const user = await createUser(live.db);
    const cookie = await consoleCookie(live.db, user.userId, live.origin);
    // Old grants (older than the hour), live for another day; two of the user's keys are live already.
    await live.db.query(
      `INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, expires_at, created_at)
       SELECT $1, $2, $3, 'read', now() + interval '1 day', now() - interval '2 hours'
         FROM generate_series(1, $4::int)`,
      [clientId, user.userId, `${live.origin}/mcp`, KEY_CAPS.livePerUser - 2],
    );
    const minted = await call(live, API_ROUTES.createKey, { key: user.apiKey, body: { label: 'too many' } });
    expect(minted.status).toBe(429);
    expect(minted.body.error.details).toMatchObject({
      policy: 'live-keys-per-user',
      count: KEY_CAPS.livePerUser,
    });
    const refused = await consent(cookie);
    expect(refused).toMatchObject({ refused: expect.stringMatching(/answered 429/) });
    // Revoked and expired grants do not count.
    await live.db.query(
      `UPDATE expense_internal.oauth_grants SET revoked_at = now()
        WHERE grant_id IN (SELECT grant_id FROM expense_internal.oauth_grants WHERE user_id = $1 LIMIT 1)`,
      [user.userId],
    );
    await live.db.query(
      `UPDATE expense_internal.oauth_grants SET expires_at = now() - interval '1 second'
        WHERE grant_id IN (SELECT grant_id FROM expense_internal.oauth_grants
                            WHERE user_id = $1 AND revoked_at IS NULL LIMIT 1)`,
      [user.userId],
    );
    expect(await consent(cookie)).toMatchObject({ code: expect.any(String) });
  });
});
