// The worked examples of docs/fx.md once more, this time as an agent sends them: through POST /v1/sql/query,
// past the guard, under the restricted role and row-level security, on both engines.
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ENGINES, type Live, startLive, type TestUser } from '../../sql/test/setup.js';
import { importFxText } from '../import.js';
import { csv, ENTRIES, example } from './doc-examples.js';

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

describe.each(ENGINES)('docs/fx.md worked example through the API on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
    expect((await importFxText(live.db, csv, { windowDays: 730, today: '2025-01-06' })).ok).toBe(true);
    user = await createUser(live.db);
    const created = await call(live, API_ROUTES.createWorkspace, { key: user.apiKey, body: { name: 'FX' } });
    expect(created.status).toBe(201);
    const values = ENTRIES.map(
      ([ts, amount, currency, kind, category]) =>
        `(TIMESTAMPTZ ${literal(ts)}, 'card', ${amount}, ${literal(currency)}, ${literal(kind)}, ${literal(category)})`,
    ).join(', ');
    const script = [
      "UPDATE workspace_settings SET reporting_currency = 'GBP'",
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${values}`,
    ].join(';\n');
    const written = await call(live, API_ROUTES.sqlScript, { key: user.apiKey, body: { sql: script } });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.data.statements.map((s: { rowCount: number }) => s.rowCount)).toEqual([1, 5]);
  });
  afterAll(() => live?.close());

  it.each(['entries', 'totals'])('%s: the API returns the table printed in the doc', async (name) => {
    const { sql, header, rows } = example(name);
    const res = await call(live, API_ROUTES.sqlQuery, { key: user.apiKey, body: { sql } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [statement] = res.body.data.statements;
    expect(statement.columns.map((c: { name: string }) => c.name)).toEqual(header);
    const got = statement.rows.map((r: Record<string, unknown>) =>
      header.map((h) => (r[h] === null ? '' : String(r[h]))),
    );
    expect(got).toEqual(rows);
  });
});
