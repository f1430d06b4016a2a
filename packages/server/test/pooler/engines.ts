// Engines served through a private PgBouncer in transaction mode, for the engine lists of the HTTP flow, the
// idempotency and the isolation tests.
import { freshPostgres } from '../http/helpers.js';
import { type PgBouncer, poolerAvailable, startPgBouncer } from './pgbouncer.js';

/**
 * A fresh PostgreSQL database served through a private PgBouncer in transaction mode: `url` is the pooled
 * URL (DATABASE_URL), `directUrl` the server's (DATABASE_DIRECT_URL); drop() stops PgBouncer and drops it.
 */
export async function pooledPostgres(): Promise<{
  url: string;
  directUrl: string;
  drop: () => Promise<void>;
}> {
  const target = await freshPostgres();
  let bouncer: PgBouncer;
  try {
    bouncer = await startPgBouncer();
  } catch (error) {
    await target.drop();
    throw error;
  }
  return {
    url: bouncer.urlOf(new URL(target.url).pathname.slice(1)),
    directUrl: target.url,
    async drop() {
      await bouncer.stop();
      await target.drop();
    },
  };
}

/** The engine lists' entry for PostgreSQL behind PgBouncer (empty when skipped: see poolerAvailable). */
export function pooledEngines(suite: string) {
  return poolerAvailable(suite)
    ? [{ name: 'PostgreSQL through PgBouncer', open: pooledPostgres } as const]
    : [];
}
