// The engines every server test runs on: embedded PGlite (in memory), a fresh PostgreSQL database, and —
// for the suites that must also hold behind a transaction-mode pooler — that database through a private
// PgBouncer. EXPENSE_TEST_ENGINES (e.g. `pglite`, as `pnpm test:quick` sets it) keeps only the engines named.
import { type PgBouncer, poolerAvailable, startPgBouncer } from './pgbouncer.js';
import { type FreshPostgres, freshPostgres } from './postgres.js';
import { postgresTemplate } from './templates.js';

/** Where an engine's database is: `url` is DATABASE_URL, `directUrl` DATABASE_DIRECT_URL when `url` is a pooler. */
export interface EngineTarget {
  url: string;
  directUrl?: string;
  /** Removes the database (and stops the pooler); after the test, also when it failed. */
  drop(): Promise<void>;
}

export type EngineKind = 'pglite' | 'postgres' | 'pooled';

/** Which engines the variable lets the suites run on (comma-separated kinds; unset or empty: all). */
export const ENGINES_ENV = 'EXPENSE_TEST_ENGINES';

/** Whether the run includes `kind` (see ENGINES_ENV). */
export function engineSelected(kind: EngineKind): boolean {
  const selected =
    process.env[ENGINES_ENV]
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean) ?? [];
  return selected.length === 0 || selected.includes(kind);
}

/**
 * A fresh PostgreSQL database for a server: a copy of the run's migrated template when there is one (see
 * templates.ts), else empty (the server migrates it). drop() removes it.
 */
export function migratedPostgres(): Promise<FreshPostgres> {
  const template = postgresTemplate();
  return freshPostgres(template ? { template } : {});
}

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
  open: () => migratedPostgres(),
};

/** PGlite and PostgreSQL: what every suite of the server runs on (those of ENGINES_ENV). */
export const ENGINES: readonly EngineSpec[] = [PGLITE, POSTGRES].filter((engine) =>
  engineSelected(engine.kind),
);

/**
 * A fresh PostgreSQL database served through a private PgBouncer in transaction mode: `url` is the pooled
 * URL (DATABASE_URL), `directUrl` the server's (DATABASE_DIRECT_URL); drop() stops PgBouncer and drops it.
 */
export async function pooledPostgres(): Promise<Required<EngineTarget>> {
  const target = await migratedPostgres();
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
  return engineSelected('pooled') && poolerAvailable(suite) ? [POOLED] : [];
}
