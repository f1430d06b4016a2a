// The engines every server test runs on: embedded PGlite (in memory), a fresh PostgreSQL database, and —
// for the suites that must also hold behind a transaction-mode pooler — that database through a private
// PgBouncer.
import { type PgBouncer, poolerAvailable, startPgBouncer } from './pgbouncer.js';
import { freshPostgres } from './postgres.js';

/** Where an engine's database is: `url` is DATABASE_URL, `directUrl` DATABASE_DIRECT_URL when `url` is a pooler. */
export interface EngineTarget {
  url: string;
  directUrl?: string;
  /** Removes the database (and stops the pooler); after the test, also when it failed. */
  drop(): Promise<void>;
}

export type EngineKind = 'pglite' | 'postgres' | 'pooled';

export interface EngineSpec {
  /** For test titles (`… on $name`). */
  name: string;
  kind: EngineKind;
  open(): Promise<EngineTarget>;
}

export const PGLITE: EngineSpec = {
  name: 'PGlite',
  kind: 'pglite',
  open: async () => ({ url: 'memory://', drop: async () => {} }),
};

export const POSTGRES: EngineSpec = {
  name: 'PostgreSQL',
  kind: 'postgres',
  open: () => freshPostgres(),
};

/** PGlite and PostgreSQL: what every suite of the server runs on. */
export const ENGINES = [PGLITE, POSTGRES] as const;

/**
 * A fresh PostgreSQL database served through a private PgBouncer in transaction mode: `url` is the pooled
 * URL (DATABASE_URL), `directUrl` the server's (DATABASE_DIRECT_URL); drop() stops PgBouncer and drops it.
 */
export async function pooledPostgres(): Promise<Required<EngineTarget>> {
  const target = await freshPostgres();
  let bouncer: PgBouncer;
  try {
    bouncer = await startPgBouncer();
  } catch (error) {
    await target.drop();
    throw error;
  }
  return {
    url: bouncer.urlOf(target.name),
    directUrl: target.url,
    async drop() {
      await bouncer.stop();
      await target.drop();
    },
  };
}

export const POOLED: EngineSpec = {
  name: 'PostgreSQL through PgBouncer',
  kind: 'pooled',
  open: pooledPostgres,
};

/** The engine lists' entry for PostgreSQL behind PgBouncer (empty when skipped: see poolerAvailable). */
export function pooledEngines(suite: string): EngineSpec[] {
  return poolerAvailable(suite) ? [POOLED] : [];
}
