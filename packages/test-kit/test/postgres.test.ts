import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminQuery, freshPostgres, withFreshPostgres } from '../src/postgres.js';

const exists = async (name: string) =>
  (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;

describe('freshPostgres', () => {
  it('creates a database with a random name that drop() removes', async () => {
    const a = await freshPostgres({ prefix: 'test_kit' });
    const b = await freshPostgres({ prefix: 'test_kit' });
    try {
      expect(a.name).toMatch(/^test_kit_[0-9a-f]{12}$/);
      expect(a.name).not.toBe(b.name);
      expect(new URL(a.url).pathname).toBe(`/${a.name}`);
      expect(await adminQuery<{ db: string }>('SELECT current_database() AS db', [], a.url)).toEqual([
        { db: a.name },
      ]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
    expect(await exists(a.name)).toBe(false);
    expect(await exists(b.name)).toBe(false);
    await a.drop(); // twice is fine
  });

  it('drops it also when what runs on it fails, with connections still open', async () => {
    let name = '';
    await expect(
      withFreshPostgres(async (database) => {
        name = database.name;
        const client = new pg.Client({ connectionString: database.url });
        client.on('error', () => {});
        await client.connect();
        throw new Error('the test failed');
      }),
    ).rejects.toThrow('the test failed');
    expect(name).not.toBe('');
    expect(await exists(name)).toBe(false);
  });

  it('refuses a prefix that is not a plain identifier', async () => {
    await expect(freshPostgres({ prefix: 'x; DROP DATABASE postgres' })).rejects.toThrow(/prefix/);
  });
});
