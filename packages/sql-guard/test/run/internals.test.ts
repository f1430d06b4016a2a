/** run's internals with a trivial check stub, on a session without batches (one query per part). */
import type { PGlite } from '@electric-sql/pglite';
import { loadModule } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteSession } from '../../src/adapters/pglite.js';
import { defaultLimits } from '../../src/limits.js';
import { GuardRunError } from '../../src/run/errors.js';
import { runStatements } from '../../src/run/run.js';
import { dateToIso, parseArray, timestampToIso } from '../../src/run/serialize.js';
import type { Limits, RunOptions, SqlSession } from '../../src/types.js';
import { blankPglite } from './engines.js';
import { stubCheck } from './stub-check.js';

describe('serialize', () => {
  it("keeps the session's offset, with millisecond or microsecond precision", () => {
    expect(timestampToIso('2026-01-02 03:04:05+05:30', true)).toBe('2026-01-02T03:04:05.000+05:30');
    expect(timestampToIso('2026-12-01 00:30:00+01', true)).toBe('2026-12-01T00:30:00.000+01:00');
    expect(timestampToIso('2026-03-08 01:59:59.5-05', true)).toBe('2026-03-08T01:59:59.500-05:00');
    expect(timestampToIso('10000-01-01 05:00:00+05', true)).toBe('+010000-01-01T05:00:00.000+05:00');
    // Local mean time (an offset with seconds) has no ISO 8601 form: the instant in UTC.
    expect(timestampToIso('2026-01-02 03:04:05.1234-03:00:52', true)).toBe(
      '2026-01-02T06:04:57.123400+00:00',
    );
    expect(timestampToIso('10000-01-01 00:00:00+00', true)).toBe('+010000-01-01T00:00:00.000+00:00');
    expect(timestampToIso('infinity', true)).toBe('infinity');
    expect(timestampToIso('0001-01-01 00:00:00 BC', false)).toBe('0000-01-01T00:00:00.000');
    expect(dateToIso('0001-12-31 BC')).toBe('0000-12-31');
    expect(dateToIso('-infinity')).toBe('-infinity');
  });

  it('gives UTC text the same instant as the same instant written with an offset', () => {
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    // PostgreSQL's ISO output of `ms` as seen at `offsetHours` (microseconds `micro`, 0 to 999).
    const text = (ms: number, micro: number, offsetHours: number) => {
      const d = new Date(ms + offsetHours * 3_600_000);
      const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
      const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
      const fraction = `${pad(d.getUTCMilliseconds(), 3)}${pad(micro, 3)}`.replace(/0+$/, '');
      return `${date} ${time}${fraction ? `.${fraction}` : ''}${offsetHours < 0 ? '-' : '+'}${pad(Math.abs(offsetHours))}`;
    };
    const first = Date.UTC(1001, 0, 1);
    const last = Date.UTC(9998, 11, 31);
    for (let i = 0; i < 2000; i++) {
      const ms = first + Math.floor((((i * 7919) % 2000) / 2000) * (last - first)) + i * 37;
      const micro = i % 3 === 0 ? 0 : (i * 131) % 1000;
      const utc = timestampToIso(text(ms, micro, 0), true);
      const local = timestampToIso(text(ms, micro, (i % 25) - 12 || 5), true);
      expect(Date.parse(local)).toBe(Date.parse(utc));
      expect(local.slice(-6)).toBe(
        `${(i % 25) - 12 < 0 ? '-' : '+'}${String(Math.abs((i % 25) - 12 || 5)).padStart(2, '0')}:00`,
      );
      if (micro === 0) expect(utc).toBe(new Date(ms).toISOString().replace('Z', '+00:00'));
    }
    expect(timestampToIso('2026-01-02 03:04:05', false)).toBe('2026-01-02T03:04:05.000');
  });

  it('parses nested and quoted arrays', () => {
    expect(parseArray('{{1,2},{3,NULL}}', Number)).toEqual([
      [1, 2],
      [3, null],
    ]);
    expect(parseArray('{"a,b","c\\"d","NULL",NULL}', (t) => t)).toEqual(['a,b', 'c"d', 'NULL', null]);
    expect(parseArray('[0:1]={7,8}', Number)).toEqual([7, 8]);
  });
});

/** run's path after the check: the stub's statements, through runStatements. */
const runChecked = (
  check: typeof stubCheck,
  limits: Limits,
  session: SqlSession,
  sql: string,
  options: RunOptions,
) => {
  const checked = check(sql, { mode: options.mode });
  if (!checked.ok) throw new Error(checked.error.message);
  return runStatements(checked.statements, limits, session, sql, options);
};

describe('runStatements without batches', () => {
  let db: PGlite;
  let closeDb: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    await loadModule();
    ({ db, close: closeDb } = await blankPglite());
    await db.exec('CREATE TABLE t (n integer PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 20)');
  });
  afterAll(() => closeDb?.());

  const limits = { ...defaultLimits, maxReturnedRows: 5, maxAffectedRows: 3 };
  const unbatched = (session: SqlSession): SqlSession => ({ query: (text) => session.query(text) });
  const inTx = <T>(fn: (s: SqlSession) => Promise<T>) =>
    db
      .transaction(async (tx) => {
        const value = await fn(unbatched(pgliteSession(tx, db)));
        await tx.rollback();
        return value;
      })
      .catch((error: unknown) => error as T);

  it('caps rows, counts writes and maps positions one query at a time', async () => {
    const result = await inTx((s) =>
      runChecked(stubCheck, limits, s, 'SELECT n FROM t ORDER BY n', { mode: 'query' }),
    );
    expect(result.statements[0]).toMatchObject({ returnedRowCount: 5, totalRowCount: 20, truncated: true });

    const capped = await inTx((s) =>
      runChecked(stubCheck, limits, s, 'WITH d AS (DELETE FROM t WHERE n > 16 RETURNING n) SELECT 1 AS one', {
        mode: 'script',
      }),
    );
    expect(capped).toBeInstanceOf(GuardRunError);
    expect(capped).toMatchObject({ code: 'mutation_row_limit_exceeded', details: { affectedRows: 4 } });

    const sql = 'SELECT n FROM t;\nSELECT missing FROM t';
    const failed = await inTx((s) => runChecked(stubCheck, limits, s, sql, { mode: 'script' }));
    expect(failed).toMatchObject({
      code: 'sql_execution_failed',
      details: { position: { line: 2, column: 8 } },
    });
  });
});
