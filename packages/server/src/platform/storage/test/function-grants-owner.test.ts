// Migration 0012 under a database owner that is not a superuser (production): the start stops with the
// statement a superuser must run; after the superuser ran the migration file, the next start applies it and the
// SQL role is restricted. PostgreSQL only (PGlite's owner is always a superuser).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_URL, type FreshPostgres, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDirectory } from '../migrate.js';
import { openDatabase } from '../open.js';

describe('migration 0012 with a non-superuser owner (PostgreSQL)', () => {
  const suffix = randomBytes(5).toString('hex');
  const role = `expense_owner_${suffix}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  let database: FreshPostgres | undefined;
  let ownerUrl: string;
  let adminOfDb: pg.Client;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN CREATEROLE`);
    database = await freshPostgres({ prefix: 'expense_owner_db', owner: role });
    const url = new URL(database.url);
    adminOfDb = new pg.Client({ connectionString: url.toString() });
    await adminOfDb.connect();
    // The documented one-time superuser step for set_config (docs/data-model.md).
    await adminOfDb.query(
      `REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
       GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO ${role};`,
    );
    url.username = role;
    ownerUrl = url.toString();
  });

  afterAll(async () => {
    await adminOfDb?.end();
    await database?.drop();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('stops with what a superuser must run, and starts once it ran', async () => {
    const failed = await openDatabase({ databaseUrl: ownerUrl, maxConnections: 2 }).then(
      async (db) => {
        await db.close();
        return undefined;
      },
      (error: unknown) => error as Error,
    );
    expect(failed?.message).toMatch(
      /Migration 12 .*only a superuser can change that: as a superuser, run the file migrations\/0012_sql_role_functions\.sql/,
    );
    expect(failed?.message).toContain(`psql -v ON_ERROR_STOP=1 -d ${database!.name} -f`);

    // The superuser runs the shipped file, as the message says.
    const file = await readFile(join(migrationsDirectory(), '0012_sql_role_functions.sql'), 'utf8');
    await adminOfDb.query(file);

    const db = await openDatabase({ databaseUrl: ownerUrl, maxConnections: 2 });
    try {
      const privileges = await db.query<{ sql_json: boolean; sql_sum: boolean; owner_lock: boolean }>(
        `SELECT has_function_privilege('expense_sql', 'pg_catalog.json_agg(anyelement)', 'EXECUTE') AS sql_json,
                has_function_privilege('expense_sql', 'pg_catalog.sum(numeric)', 'EXECUTE') AS sql_sum,
                has_function_privilege(current_user, 'pg_catalog.pg_advisory_xact_lock(bigint)', 'EXECUTE') AS owner_lock`,
      );
      expect(privileges.rows[0]).toEqual({ sql_json: false, sql_sum: true, owner_lock: true });
      const applied = await db.query<{ version: number }>(
        'SELECT version FROM expense_internal.schema_migrations WHERE version = 12',
      );
      expect(applied.rows).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});
