// How PGliteWorkerHost starts PGlite: settings on its command line, and a new data directory that is created,
// then reopened in a fresh worker (without initdb's memory) with everything it holds.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteWorkerHost } from '../../src/adapters/pglite.js';

describe('PGliteWorkerHost start', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'guard-pglite-start-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a new directory, keeps what is written, and applies settings without writing them to postgresql.conf', async () => {
    const host = await PGliteWorkerHost.open({ dataDir, settings: { shared_buffers: '16MB' } });
    try {
      const shown = await host.query('SHOW shared_buffers');
      expect(shown.rows[0]).toEqual({ shared_buffers: '16MB' });
      await host.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    } finally {
      await host.close();
    }
    expect(await readFile(join(dataDir, 'postgresql.conf'), 'utf8')).not.toMatch(
      /^shared_buffers\s*=\s*16MB/m,
    );

    const again = await PGliteWorkerHost.open({ dataDir });
    try {
      expect((await again.query('SELECT n FROM kept')).rows).toEqual([{ n: '7' }]);
      expect((await again.query('SHOW shared_buffers')).rows[0]).not.toEqual({ shared_buffers: '16MB' });
    } finally {
      await again.close();
    }
  });

  it('answers a batch whose answer PGlite writes in many pieces, every byte in order', async () => {
    const host = await PGliteWorkerHost.open({ dataDir });
    try {
      const results = await host.exec(
        "SELECT i, repeat(md5(i::text), 1000) AS t FROM generate_series(1, 40) i; SELECT 'two' AS two",
      );
      expect(results).toHaveLength(2);
      expect(results[0]?.rows).toEqual(
        Array.from({ length: 40 }, (_, k) => ({
          i: String(k + 1),
          t: createHash('md5')
            .update(String(k + 1))
            .digest('hex')
            .repeat(1000),
        })),
      );
      expect(results[1]?.rows).toEqual([{ two: 'two' }]);
    } finally {
      await host.close();
    }
  });

  it('refuses a setting name that is not one', async () => {
    await expect(
      PGliteWorkerHost.open({ dataDir, settings: { 'shared_buffers=1 -c x': '1' } }),
    ).rejects.toThrow(/Not a PostgreSQL setting name/);
  });
});
