// POST /v1/imports reads its file in the read pool's worker threads (read-pool.ts), off the event loop: while a
// large file is being read, another user's requests are answered; the pool's queue is bounded and a read that
// finds it full is refused at once (429 rate_limited, variant import_busy, Retry-After).
import { ImportError } from '@expense/import';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Json,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { READ_PER_USER, ReadAbortedError, ReadDeadlineError, ReadPool, readPool } from '../read-pool.js';
import { fixture } from './fixtures.js';

/** A CSV of about 9 MiB in no bank's layout whose last row breaks its running balance: read whole, then refused. */
function largeFile(): string {
  const lines = ['Date,Description,Amount,Balance'];
  let balance = 0;
  for (let i = 0; lines.length * 60 < 9 * 1024 * 1024; i++) {
    const amount = (i % 7 === 0 ? 1 : -1) * ((i % 300) + 1 + (i % 100) / 100);
    balance += amount;
    lines.push(
      `2026-03-${String((i % 28) + 1).padStart(2, '0')},"PAYEE NUMBER ${i} LONDON",${amount.toFixed(2)},${balance.toFixed(2)}`,
    );
  }
  lines.push('2026-03-28,"THE LAST ONE",-1.00,0.00');
  return `${lines.join('\n')}\n`;
}

describe.each(ENGINES.slice(0, 1))('the import read pool on $name', (engine) => {
  let live: Live;
  let importer: TestUser;
  let other: TestUser;
  let ws: string;

  beforeAll(async () => {
    live = await startLive(engine);
    importer = await createUser(live.db, 'importer');
    ws = await addWorkspace(live.db, importer.userId, 'Large');
    other = await createUser(live.db, 'other');
    await addWorkspace(live.db, other.userId, 'Other');
  });
  afterAll(async () => live?.close());

  it("answers another user's requests while a large file is being read", async () => {
    const answers: string[] = [];
    const reading = readPool().whenReading();
    const imported = fetch(
      `${live.origin}${routePath(API_ROUTES.importFile, {}, { account: 'checking', dryRun: true })}`,
      {
        method: API_ROUTES.importFile.method,
        headers: {
          authorization: `ApiKey ${importer.apiKey}`,
          'x-workspace-id': ws,
          'content-type': 'text/csv',
        },
        body: largeFile(),
      },
    ).then(async (res) => {
      answers.push('import');
      return { status: res.status, body: (await res.json()) as Json };
    });
    await reading;
    const me = await call(live, API_ROUTES.me, { key: other.apiKey });
    answers.push('me');
    expect(me.status).toBe(200);
    const query = await call(live, API_ROUTES.sqlQuery, {
      key: other.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    answers.push('query');
    expect(query.status, JSON.stringify(query.body)).toBe(200);
    // Both answered while the file was still being read: the read's refusal comes after them.
    expect(readPool().reading).toBeGreaterThan(0);
    const { status, body } = await imported;
    expect(answers).toEqual(['me', 'query', 'import']);
    expect([status, body.error.code], JSON.stringify(body.error)).toEqual([400, 'import_unbalanced']);
  });

  it('refuses a read when its queue is full, with the code to retry', async () => {
    const pool = new ReadPool({ threads: 1, maxQueue: 1 });
    const request = { fileName: 'wise.csv', bytes: fixture('wise.csv'), account: 'wise' };
    const first = pool.read(request, 'EUR', { tenant: 'a', deadlineMs: 60_000 });
    const second = pool.read(request, 'EUR', { tenant: 'b', deadlineMs: 60_000 });
    const third = pool.read(request, 'EUR', { tenant: 'c', deadlineMs: 60_000 });
    await expect(third).rejects.toMatchObject({ name: 'ReadBusyError', mine: false });
    const [a, b] = await Promise.all([first, second]);
    expect(a.rows.length).toBeGreaterThan(0);
    expect(b.rows).toEqual(a.rows);
    expect(a.target.table).toBe('ledger_entries');
    // A refusal of the reader crosses the thread as the ImportError it was.
    const refused = pool.read({ fileName: 'x.csv', bytes: new TextEncoder().encode('\u0000\u0001') }, 'EUR', {
      tenant: 'a',
      deadlineMs: 60_000,
    });
    await expect(refused).rejects.toBeInstanceOf(ImportError);
  });

  it("keeps one user's files to READ_PER_USER at once, so they never fill the queue for the others", async () => {
    const pool = new ReadPool({ threads: 1, maxQueue: 8 });
    const request = { fileName: 'wise.csv', bytes: fixture('wise.csv'), account: 'wise' };
    const mine = Array.from({ length: READ_PER_USER }, () =>
      pool.read(request, 'EUR', { tenant: 'attacker', deadlineMs: 60_000 }),
    );
    await expect(pool.read(request, 'EUR', { tenant: 'attacker', deadlineMs: 60_000 })).rejects.toMatchObject(
      {
        name: 'ReadBusyError',
        mine: true,
      },
    );
    const other = pool.read(request, 'EUR', { tenant: 'bystander', deadlineMs: 60_000 });
    expect((await other).rows.length).toBeGreaterThan(0);
    await Promise.all(mine);
    // Once read, the user's places are free again.
    expect(
      (await pool.read(request, 'EUR', { tenant: 'attacker', deadlineMs: 60_000 })).rows.length,
    ).toBeGreaterThan(0);
  });

  it('stops a read past its deadline with its thread, and reads the next file on a fresh one', async () => {
    const pool = new ReadPool({ threads: 1, maxQueue: 8 });
    const request = { fileName: 'wise.csv', bytes: fixture('wise.csv'), account: 'wise' };
    const late = pool.read(request, 'EUR', { tenant: 'a', deadlineMs: 0 });
    const next = pool.read(request, 'EUR', { tenant: 'b', deadlineMs: 60_000 });
    await expect(late).rejects.toBeInstanceOf(ReadDeadlineError);
    expect((await next).rows.length).toBeGreaterThan(0);
    expect(pool.reading).toBe(0);
  });

  it('stops a read whose client went away with its thread, and reads the next file on a fresh one', async () => {
    const pool = new ReadPool({ threads: 1, maxQueue: 8 });
    const client = new AbortController();
    const gone = pool.read({ fileName: 'large.csv', bytes: new TextEncoder().encode(largeFile()) }, 'EUR', {
      tenant: 'a',
      deadlineMs: 600_000,
      signal: client.signal,
    });
    await pool.whenReading();
    client.abort();
    await expect(gone).rejects.toBeInstanceOf(ReadAbortedError);
    const request = { fileName: 'wise.csv', bytes: fixture('wise.csv'), account: 'wise' };
    expect(
      (await pool.read(request, 'EUR', { tenant: 'b', deadlineMs: 60_000 })).rows.length,
    ).toBeGreaterThan(0);
    expect(pool.reading).toBe(0);
  });
});
