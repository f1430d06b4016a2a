import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';

/**
 * A key may mint keys (POST /v1/keys), and a console session may mint OAuth grants (each consent, whose access
 * token is a key with its own rate limits): without a bound, one credential turns into any number of
 * credentials (and rows). Live credentials per user, and credentials minted per user and hour, are capped;
 * a live OAuth grant counts as one key whether or not its access token was issued or is expired.
 */
export const KEY_CAPS = { livePerUser: 100, createdPerHour: 20 } as const;
const CAP_RETRY_SECONDS = 3600;

/**
 * Throws 429 `rate_limited` (variant `key_caps`) when the user may not have one more key or grant. Run it in
 * the transaction that creates the credential: it locks the user's row, so concurrent creations of one user
 * wait for each other and cannot both take the last place.
 */
export async function refuseBeyondKeyCaps(tx: Queryable, userId: string): Promise<void> {
  await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ live: number; recent: number }>(
    `WITH keys AS (
       SELECT count(*) FILTER (WHERE kind <> 'oauth' AND revoked_at IS NULL
                                 AND (expires_at IS NULL OR expires_at > now()))::int AS live,
              count(*) FILTER (WHERE kind = 'agent' AND created_at > now() - interval '1 hour')::int AS recent
         FROM expense_internal.api_keys WHERE user_id = $1
     ), grants AS (
       SELECT count(*) FILTER (WHERE revoked_at IS NULL AND expires_at > now())::int AS live,
              count(*) FILTER (WHERE created_at > now() - interval '1 hour')::int AS recent
         FROM expense_internal.oauth_grants WHERE user_id = $1
     )
     SELECT keys.live + grants.live AS live, keys.recent + grants.recent AS recent FROM keys, grants`,
    [userId],
  );
  const { live, recent } = rows[0] ?? { live: 0, recent: 0 };
  const refuse = (policy: string, message: string, limit: number, count: number) =>
    new ApiError('rate_limited', message, {
      variant: 'key_caps',
      headers: { 'retry-after': String(CAP_RETRY_SECONDS) },
      details: { policy, limit, count, retryAfterSeconds: CAP_RETRY_SECONDS },
    });
  if (live >= KEY_CAPS.livePerUser) {
    throw refuse(
      'live-keys-per-user',
      `You have ${live} live keys and connections: at most ${KEY_CAPS.livePerUser}.`,
      KEY_CAPS.livePerUser,
      live,
    );
  }
  if (recent >= KEY_CAPS.createdPerHour) {
    throw refuse(
      'new-keys-per-user-hour',
      `${recent} keys and connections were created for you in the last hour: at most ${KEY_CAPS.createdPerHour}.`,
      KEY_CAPS.createdPerHour,
      recent,
    );
  }
}
