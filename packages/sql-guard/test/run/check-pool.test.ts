/** checkAsync: the same verdicts as check, long texts off the main thread, a bounded queue. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { GuardBusyError } from '../../src/pool/check-pool.js';
import type { Guard } from '../../src/types.js';
import { openEngine, schema, testDialect } from './engines.js';

const inList = (length: number) =>
  `SELECT 1 IN (${Array.from({ length: Math.floor((length - 14) / 2) }, () => '1').join(',')})`;

describe('checkAsync', () => {
  let guard: Guard;
  beforeAll(async () => {
    guard = await createGuard({ dialect: testDialect, checkPool: { minLength: 1000 } });
  });
  afterAll(() => guard?.close());

  it('gives the verdicts of check, inline and in the pool alike', async () => {
    const texts = [
      'SELECT n FROM numbers',
      'SELECT now()',
      inList(5_000),
      `${inList(5_000)} FROM pg_class`,
      `SELECT n FROM numbers WHERE n IN (${Array.from({ length: 600 }, (_, i) => i).join(', ')})`,
      `DELETE FROM items WHERE id IN (${Array.from({ length: 600 }, (_, i) => i).join(', ')})`,
      `SELECT ${'('.repeat(600)}1${')'.repeat(600)}`,
      `SELECT 'a' ${'-- x '.repeat(300)}`,
    ];
    for (const sql of texts) {
      for (const mode of ['query', 'execute', 'script'] as const) {
        expect(await guard.checkAsync(sql, { mode }), `${mode}: ${sql.slice(0, 40)}`).toEqual(
          guard.check(sql, { mode }),
        );
      }
    }
  });

  it('keeps the event loop turning while a long text is checked', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const result = await guard.checkAsync(inList(100_000), { mode: 'query' });
    clearInterval(timer);
    expect(result.ok).toBe(true);
    expect(ticks).toBeGreaterThan(0);
  });

  it('hands run a result it takes without checking again', async () => {
    const engine = await openEngine('pglite');
    try {
      await engine.exec(schema);
      const sql = `SELECT count(*) AS c FROM numbers WHERE n IN (${Array.from({ length: 600 }, (_, i) => i).join(', ')})`;
      const checked = await guard.checkAsync(sql, { mode: 'query' });
      const result = await engine.transaction((s) => guard.run(s, sql, { mode: 'query', checked }), {
        rollback: true,
      });
      expect(result.statements[0]?.rows).toEqual([{ c: '250' }]);
    } finally {
      await engine.close();
    }
  });

  it('refuses at once, without queueing, when the queue is full', async () => {
    const busy = await createGuard({ dialect: testDialect, checkPool: { threads: 1, maxQueue: 1 } });
    try {
      const long = inList(60_000);
      const outcomes = await Promise.allSettled([
        busy.checkAsync(long, { mode: 'query' }),
        busy.checkAsync(long, { mode: 'query' }),
        busy.checkAsync(long, { mode: 'query' }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(GuardBusyError);
      // Short texts never wait for the pool.
      expect((await busy.checkAsync('SELECT n FROM numbers', { mode: 'query' })).ok).toBe(true);
      await busy.close();
      expect((await busy.checkAsync(long, { mode: 'query' })).ok).toBe(true);
    } finally {
      await busy.close();
    }
  });
});
