// DATABASE_DIRECT_URL and the two pool sizes in the configuration, and what openDatabase refuses.
import { describe, expect, it } from 'vitest';
import { configFromEnv, databaseOptions, parseConfig } from '../../../config/config.js';
import { StorageError } from '../../errors.js';
import { openDatabase } from '../../index.js';

describe('the database configuration', () => {
  it('reads DATABASE_DIRECT_URL and defaults the pools to 10 for user SQL and 4 for internal work', () => {
    const config = parseConfig(
      configFromEnv({
        DATABASE_URL: 'postgres://app@pooler:6432/expense',
        DATABASE_DIRECT_URL: 'postgres://app@db:5432/expense',
      }),
    );
    expect(databaseOptions(config)).toEqual({
      databaseUrl: 'postgres://app@pooler:6432/expense',
      directUrl: 'postgres://app@db:5432/expense',
      embeddedMaxMemoryMb: 1024,
      dataDir: './.expense/data',
      maxConnections: 10,
      internalConnections: 4,
    });
    expect(parseConfig({}).databaseDirectUrl).toBeUndefined();
  });

  it('takes the pool sizes from the configuration object only', () => {
    const config = parseConfig({ databasePoolSize: 3, databaseInternalPoolSize: 2 });
    expect([config.databasePoolSize, config.databaseInternalPoolSize]).toEqual([3, 2]);
    expect(() => parseConfig({ databaseInternalPoolSize: 0 })).toThrow(/databaseInternalPoolSize/);
    expect(configFromEnv({ EXPENSE_DATABASE_POOL_SIZE: '3' } as NodeJS.ProcessEnv)).toEqual({});
  });

  it('refuses a direct URL that is not postgres://, or one beside the embedded database', async () => {
    for (const config of [
      { databaseUrl: 'postgres://app@pooler:6432/expense', directUrl: 'mysql://db/expense' },
      { databaseUrl: 'memory://', directUrl: 'postgres://app@db:5432/expense' },
    ]) {
      const error = await openDatabase(config).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('invalid_database_url');
    }
  });
});
