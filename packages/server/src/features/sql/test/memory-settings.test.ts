// Migration 0048 (issue 35): the memory one user statement may take is pinned for the database, whatever the server's
// postgresql.conf says: work_mem 4MB, hash_mem_multiplier 1, no parallel workers, no JIT.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startLive } from './setup.js';

const PINNED = ['work_mem=4MB', 'hash_mem_multiplier=1', 'max_parallel_workers_per_gather=0', 'jit=off'];

describe.each(ENGINES)('user SQL memory settings on $name', (engine) => {
  let live: Live;
  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());

  it('are the database settings every new connection starts with', async () => {
    const rows = (
      await live.db.query<{ setconfig: string }>(
        `SELECT array_to_string(s.setconfig, ',') AS setconfig FROM pg_catalog.pg_db_role_setting AS s
           JOIN pg_catalog.pg_database AS d ON d.oid = s.setdatabase
          WHERE d.datname = current_database() AND s.setrole = 0`,
      )
    ).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.setconfig.split(',')).toEqual(expect.arrayContaining(PINNED));
  });

  it.runIf(engine.name === 'PostgreSQL')('hold on a connection opened after start', async () => {
    const client = new pg.Client({ connectionString: live.databaseUrl });
    await client.connect();
    try {
      const shown: string[] = [];
      for (const name of ['work_mem', 'hash_mem_multiplier', 'max_parallel_workers_per_gather', 'jit'])
        shown.push(`${name}=${(await client.query(`SHOW ${name}`)).rows[0][name]}`);
      expect(shown).toEqual(PINNED);
    } finally {
      await client.end();
    }
  });
});
