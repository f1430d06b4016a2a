// Temporary files of user SQL are bounded on both engines (temp_file_limit, set by migration 0013 on
// PostgreSQL and at start on the embedded engine).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../features/sql/test/setup.js';
import { type Database, openDatabase } from '../../storage/index.js';

describe.each(ENGINES)('temp_file_limit on $name', (engine) => {
  let db: Database;
  let target: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    target = await engine.open();
    db = await openDatabase({ databaseUrl: target.url });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });

  it('is 256MB in the sessions that run user SQL', async () => {
    if (engine.name === 'PostgreSQL') {
      // A new connection, as the pool opens them, then under the SQL role as user transactions run.
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL ROLE expense_sql');
        const { rows } = await client.query('SHOW temp_file_limit');
        expect(rows[0].temp_file_limit).toBe('256MB');
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
    } else {
      const { rows } = await db.query<{ temp_file_limit: string }>('SHOW temp_file_limit');
      expect(rows[0]?.temp_file_limit).toBe('256MB');
    }
  });
});
