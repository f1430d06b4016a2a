/**
 * The deadline really stops a statement that would run for minutes (a 4-way cross join of 250 rows:
 * ~3.9 billion rows), on PostgreSQL (statement_timeout plus a cancel) and on PGlite in a worker thread
 * (the worker is terminated and the database reopened). No durations are asserted.
 */
import { rm } from 'node:fs/promises';
import { emptyPgliteDir } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteWorkerHost } from '../../src/adapters/pglite.js';
import { createGuard } from '../../src/guard.js';
import { GuardRunError } from '../../src/run/errors.js';
import type { Guard } from '../../src/types.js';
import { type Engine, openEngine, testDialect } from './engines.js';

const endless = 'SELECT count(*) AS n FROM numbers a, numbers b, numbers c, numbers d';
const setup = `
  CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL UNIQUE, amount numeric(12,2) NOT NULL DEFAULT 0);
  CREATE TABLE numbers (n integer PRIMARY KEY);
  INSERT INTO numbers SELECT g FROM generate_series(1, 250) g;
  INSERT INTO items (id, name) VALUES (1, 'committed');
`;

/** The two relations of the setup (run verifies its dialect against the database). */
const dialect = {
  ...testDialect,
  relations: { items: testDialect.relations.items!, numbers: testDialect.relations.numbers! },
};

let guard: Guard;
beforeAll(async () => {
  guard = await createGuard({ dialect, limits: { deadlineMs: 1500 } });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('deadline on PostgreSQL', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openEngine('postgres');
    await engine.exec(setup);
  });
  afterAll(() => engine?.close());

  it('stops a minutes-long query at the deadline; the pool serves queries again', async () => {
    const error = await rejection(
      engine.transaction(async (session) => {
        await session.query("INSERT INTO items (id, name) VALUES (2, 'uncommitted')");
        return guard.run(session, endless, { mode: 'query' });
      }),
    );
    expect(error).toBeInstanceOf(GuardRunError);
    expect(error).toMatchObject({ code: 'deadline_exceeded', details: { statementIndex: 0 } });
    expect(await engine.rows('SELECT name FROM items ORDER BY id')).toEqual([{ name: 'committed' }]);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const patient = await createGuard({ dialect, limits: { deadlineMs: 600_000 } });
    const running = rejection(
      engine.transaction((session) =>
        patient.run(session, endless, { mode: 'query', signal: controller.signal }),
      ),
    );
    setTimeout(() => controller.abort(), 300);
    expect(await running).toMatchObject({ code: 'deadline_exceeded', details: { aborted: true } });
    expect(await engine.rows('SELECT count(*) AS c FROM items')).toEqual([{ c: '1' }]);
  });
});

describe('deadline on PGlite in a worker thread', () => {
  let dataDir: string;
  let host: PGliteWorkerHost;
  beforeAll(async () => {
    dataDir = await emptyPgliteDir('sql-guard-deadline-');
    host = await PGliteWorkerHost.open({ dataDir });
    await host.exec(setup);
  });
  afterAll(async () => {
    await host?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('interrupts a minutes-long query; committed data survives and the host serves queries again', async () => {
    expect(host.warm).toBe(true); // the setup's statements were answered
    let interrupted = false;
    const error = await rejection(
      host.transaction(async (tx) => {
        await tx.query("INSERT INTO items (id, name) VALUES (2, 'uncommitted')");
        const run = await rejection(guard.run(tx, endless, { mode: 'query' }));
        interrupted = tx.interrupted;
        throw run;
      }),
    );
    expect(error).toBeInstanceOf(GuardRunError);
    expect(error).toMatchObject({ code: 'deadline_exceeded' });
    expect(interrupted).toBe(true);
    // A fresh worker serves the database now, and has answered nothing yet.
    expect(host.warm).toBe(false);
    expect((await host.query('SELECT name FROM items ORDER BY id')).rows).toEqual([{ name: 'committed' }]);
    expect(host.warm).toBe(true);
    const again = await host.transaction((tx) =>
      guard.run(tx, 'SELECT n FROM numbers WHERE n <= 2 ORDER BY n', { mode: 'query' }),
    );
    expect(again.statements[0]?.rows).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('queues transactions: one at a time', async () => {
    const order: string[] = [];
    const first = host.transaction(async (tx) => {
      order.push('first begins');
      await tx.query("INSERT INTO items (id, name) VALUES (10, 'first')");
      // Round trips to the worker, each a turn of the event loop in which a second transaction let in would begin.
      for (let i = 0; i < 3; i++) await tx.query('SELECT 1');
      order.push('first ends');
    });
    const second = host.transaction(async (tx) => {
      order.push('second begins');
      return (await tx.query('SELECT count(*) AS c FROM items')).rows;
    });
    await first;
    expect(await second).toEqual([{ c: '2' }]);
    expect(order).toEqual(['first begins', 'first ends', 'second begins']);
    await host.query('DELETE FROM items WHERE id = $1', [10]);
  });
});
