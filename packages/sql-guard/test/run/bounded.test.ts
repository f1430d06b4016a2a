/** Reads that skip the cursor (a literal LIMIT within the cap) and sessions with pinned output settings. */

import { type FreshPostgres, freshPostgres } from '@expense/test-kit';
import { loadModule } from 'libpg-query';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgOutputSettingsOption, pgSession } from '../../src/adapters/pg.js';
import { createGuard } from '../../src/guard.js';
import { GuardRunError } from '../../src/run/errors.js';
import { literalLimit } from '../../src/run/statement-shape.js';
import type { Guard } from '../../src/types.js';
import { type Engine, openEngine, schema, testDialect } from './engines.js';
import { recording } from './helpers.js';

const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 20_000 };

describe('literalLimit', () => {
  beforeAll(() => loadModule());

  it('proves a bound only for a top-level integer LIMIT of a plain SELECT', () => {
    expect(literalLimit('SELECT n FROM numbers ORDER BY n LIMIT 20')).toBe(20);
    expect(literalLimit('SELECT n FROM numbers LIMIT 0')).toBe(0);
    expect(literalLimit('SELECT n FROM numbers LIMIT 5 OFFSET 10')).toBe(5);
    expect(literalLimit('(SELECT n FROM numbers LIMIT 4)')).toBe(4);
    expect(literalLimit('WITH x AS (SELECT n FROM numbers) SELECT n FROM x LIMIT 3')).toBe(3);
    for (const sql of [
      'SELECT n FROM numbers',
      'SELECT n FROM numbers LIMIT ALL',
      'SELECT n FROM numbers LIMIT NULL',
      'SELECT n FROM numbers LIMIT 3.5',
      "SELECT n FROM numbers LIMIT '4'",
      'SELECT n FROM numbers LIMIT 2 + 2',
      'SELECT n FROM numbers LIMIT 99999999999',
      'SELECT n FROM numbers ORDER BY n FETCH FIRST 3 ROWS WITH TIES',
      'SELECT n FROM numbers UNION ALL SELECT n FROM numbers LIMIT 3',
      'SELECT n FROM (SELECT n FROM numbers LIMIT 3) s',
      'SELECT n FROM numbers LIMIT 3 FOR UPDATE',
      'SELECT n INTO t FROM numbers LIMIT 3',
      'DELETE FROM numbers',
    ]) {
      expect(literalLimit(sql), sql).toBeNull();
    }
  });
});

describe.each(['postgres', 'pglite'] as const)('reads without a cursor on %s', (name) => {
  let engine: Engine;
  let guard: Guard;
  let small: Guard;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    guard = await createGuard({ dialect: testDialect, limits });
    small = await createGuard({ dialect: testDialect, limits: { ...limits, maxReturnedRows: 3 } });
  });
  afterAll(() => engine?.close());

  const run = (g: Guard, sql: string) =>
    engine.transaction(
      async (s) => {
        const { session, sent } = recording(s);
        const result = await g.run(session, sql, { mode: 'query' });
        return { statement: result.statements[0], sent: sent.join('\n') };
      },
      { rollback: true },
    );

  it('runs a LIMIT within the cap directly, with every row and the exact total', async () => {
    const { statement, sent } = await run(guard, 'SELECT n FROM numbers ORDER BY n LIMIT 100');
    expect(sent).not.toContain('DECLARE');
    expect(statement).toMatchObject({
      command: 'SELECT',
      columns: [{ name: 'n', type: 'int4' }],
      rowCount: 100,
      returnedRowCount: 100,
      totalRowCount: 100,
      truncated: false,
    });
    expect(statement?.rows.at(-1)).toEqual({ n: 100 });

    const offset = await run(guard, 'SELECT n FROM numbers ORDER BY n LIMIT 5 OFFSET 248');
    expect(offset.sent).not.toContain('DECLARE');
    expect(offset.statement).toMatchObject({ rows: [{ n: 249 }, { n: 250 }], totalRowCount: 2 });
  });

  it('keeps the cursor for a LIMIT over the cap, and caps with the exact total', async () => {
    const { statement, sent } = await run(guard, 'SELECT n FROM numbers ORDER BY n LIMIT 101');
    expect(sent).toContain('DECLARE');
    expect(statement).toMatchObject({ returnedRowCount: 100, totalRowCount: 101, truncated: true });

    const capped = await run(small, 'SELECT n FROM numbers ORDER BY n LIMIT 5');
    expect(capped.sent).toContain('DECLARE');
    expect(capped.statement).toMatchObject({ returnedRowCount: 3, totalRowCount: 5, truncated: true });
  });

  it('keeps the cursor where the LIMIT proves nothing (set operations, WITH TIES)', async () => {
    const union = await run(small, 'SELECT n FROM numbers UNION ALL SELECT n FROM numbers LIMIT 3');
    expect(union.sent).toContain('DECLARE');
    expect(union.statement).toMatchObject({ returnedRowCount: 3, totalRowCount: 3 });

    // Ties may return more rows than the count: 1, 1, 2, 2, 3, 3 with the third row tied to the fourth.
    const ties = await run(
      small,
      'SELECT (n + 1) / 2 AS h FROM numbers WHERE n <= 6 ORDER BY (n + 1) / 2 FETCH FIRST 3 ROWS WITH TIES',
    );
    expect(ties.sent).toContain('DECLARE');
    expect(ties.statement).toMatchObject({ returnedRowCount: 3, totalRowCount: 4, truncated: true });
  });

  it('maps an error of the direct statement to the submitted text', async () => {
    const error = await run(guard, "SELECT n, 'nope'::integer FROM numbers LIMIT 5").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GuardRunError);
    expect((error as GuardRunError).details).toMatchObject({
      sqlstate: '22P02',
      position: { offset: 10, line: 1, column: 11 },
    });
  });
});

describe('pinned output settings on PostgreSQL', () => {
  let database: FreshPostgres;
  let guard: Guard;

  beforeAll(async () => {
    database = await freshPostgres({ prefix: 'sql_guard_pinned' });
    const owner = new pg.Client({ connectionString: database.url });
    await owner.connect();
    await owner.query(schema);
    await owner.end();
    guard = await createGuard({ dialect: testDialect, limits });
  });
  afterAll(async () => database?.drop());

  const inTransaction = async <T>(
    options: string | undefined,
    fn: (client: pg.Client) => Promise<T>,
  ): Promise<T> => {
    const client = new pg.Client({ connectionString: database.url, ...(options ? { options } : {}) });
    await client.connect();
    try {
      await client.query('BEGIN');
      return await fn(client);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  };

  const sql = "SELECT TIMESTAMPTZ '2026-01-02T03:04:05.5Z' AS t, DATE '2026-08-09' AS d";

  /** A prelude that verifies the pinned settings, as a caller whose connections carry them does. */
  const verifying = { prelude: (check: string) => [`SELECT ${check} AS settings`] };

  it('verifies the settings in a prelude instead of setting them, with the same values', async () => {
    const expected = await inTransaction(undefined, (client) =>
      guard.run(pgSession(client), sql, { mode: 'query' }),
    );
    const { result, sent, after } = await inTransaction(pgOutputSettingsOption, async (client) => {
      const { session, sent } = recording(pgSession(client));
      const result = await guard.run(session, sql, { mode: 'query', around: verifying });
      const after = await client.query("SELECT current_setting('DateStyle') AS d");
      return { result, sent: sent.join('\n'), after: after.rows[0]?.d };
    });
    expect(sent).not.toMatch(/SET LOCAL (DateStyle|IntervalStyle|extra_float_digits)/);
    // The check travels once, in the prelude, in the same round trip as the statement.
    expect(sent.split("current_setting('IntervalStyle')")).toHaveLength(2);
    expect(sent.startsWith('SELECT pg_catalog.current_setting(')).toBe(true);
    expect(result.statements[0]?.rows).toEqual(expected.statements[0]?.rows);
    expect(result.statements[0]?.rows[0]).toEqual({
      t: '2026-01-02T03:04:05.500+00:00',
      d: '2026-08-09',
    });
    expect(after).toMatch(/^ISO,/); // the session's own value, untouched
  });

  it('refuses a prelude that does not evaluate the settings check, sending nothing', async () => {
    const { error, sent } = await inTransaction(pgOutputSettingsOption, async (client) => {
      const { session, sent } = recording(pgSession(client));
      const error = await guard
        .run(session, 'SELECT 1 AS one', { mode: 'query', around: { prelude: () => ['SELECT 1 AS mine'] } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      return { error, sent };
    });
    expect(error).toBeInstanceOf(GuardRunError);
    expect((error as GuardRunError).code).toBe('session_settings_invalid');
    expect(sent).toEqual([]);
  });

  it('sends the prelude and epilogue in the first and last round trips and hands back their results', async () => {
    const { sent, answered, result, timeout } = await inTransaction(
      pgOutputSettingsOption,
      async (client) => {
        const { session, sent } = recording(pgSession(client));
        const answered: Array<[string, unknown[]]> = [];
        const result = await guard.run(
          session,
          "INSERT INTO items (id, name) VALUES (7001, 'x'); SELECT 2 AS two",
          {
            mode: 'script',
            around: {
              prelude: (check) => [`SELECT ${check} AS settings, 'p' AS mine`],
              epilogue: ["SELECT 'e' AS mine"],
              answered: (part, results) => answered.push([part, results.map((r) => r.rows[0]?.mine)]),
            },
          },
        );
        const after = await client.query("SELECT current_setting('statement_timeout') AS t");
        return { sent, answered, result, timeout: after.rows[0]?.t };
      },
    );
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^SELECT pg_catalog\.current_setting\(/);
    expect(sent[0]).toContain('INSERT INTO items');
    expect(sent[1]?.endsWith("SELECT 'e' AS mine")).toBe(true);
    expect(answered).toEqual([
      ['prelude', ['p']],
      ['epilogue', ['e']],
    ]);
    expect(result.statements.map((s) => s.rowCount)).toEqual([1, 1]);
    // The epilogue ends the transaction (the caller's COMMIT): run does not set statement_timeout back.
    expect(sent.join('\n')).not.toContain('TO DEFAULT');
    expect(timeout).not.toBe('0');
  });

  it('maps an error position past the prelude into the submitted text', async () => {
    const error = await inTransaction(pgOutputSettingsOption, async (client) =>
      guard
        .run(pgSession(client), 'SELECT n FROM numbers WHERE n = 1 / 0 LIMIT 1', {
          mode: 'query',
          around: verifying,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
    );
    expect(error).toBeInstanceOf(GuardRunError);
    expect((error as GuardRunError).details).toMatchObject({ sqlstate: '22012' });
    const bad = await inTransaction(pgOutputSettingsOption, async (client) =>
      guard
        .run(pgSession(client), "SELECT n FROM numbers WHERE n = 'x'::integer LIMIT 1", {
          mode: 'query',
          around: verifying,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
    );
    expect((bad as GuardRunError).details.position).toMatchObject({ offset: 32, line: 1 });
  });

  it('resets statement_timeout when there is no epilogue', async () => {
    const { sent, timeout } = await inTransaction(undefined, async (client) => {
      const { session, sent } = recording(pgSession(client));
      await guard.run(session, 'SELECT 1 AS one', { mode: 'query' });
      const after = await client.query("SELECT current_setting('statement_timeout') AS t");
      return { sent: sent.join('\n'), timeout: after.rows[0]?.t };
    });
    expect(sent).toContain('SET LOCAL statement_timeout TO DEFAULT');
    expect(timeout).toBe('0');
  });

  it('refuses a session whose prelude says it is pinned but is not, before the statement runs', async () => {
    for (const setting of [
      "SET DateStyle = 'SQL, DMY'",
      'SET IntervalStyle = iso_8601',
      'SET extra_float_digits = 3',
    ]) {
      const error = await inTransaction(pgOutputSettingsOption, async (client) => {
        await client.query(setting);
        return guard.run(pgSession(client), 'SELECT 1 AS one', { mode: 'query', around: verifying }).then(
          () => undefined,
          (e: unknown) => e,
        );
      });
      expect(error, setting).toBeInstanceOf(GuardRunError);
      expect((error as GuardRunError).code, setting).toBe('session_settings_invalid');
      expect((error as Error).message, setting).toMatch(/DateStyle = ISO, IntervalStyle = postgres/);
    }
  });
});
