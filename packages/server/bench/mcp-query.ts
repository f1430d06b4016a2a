// The cost of MCP (issues 22 and 39): the same SELECT as the `query` tool over /mcp (one stateless JSON-RPC
// tools/call, in the 2025-11-25 revision and in 2026-07-28) and as POST /v1/sql/query, over a real socket to one
// server, interleaved request by request, on both engines. Goal: the tool ≤ 1.3x the route (median), both revisions. Prints a Markdown table; `pnpm bench` keeps it in
// bench-results/mcp-query.txt for docs/benchmarks.md.
//   node --conditions=@expense/source --import tsx bench/mcp-query.ts [--rounds 300]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres } from '@expense/test-kit';
import { createServer } from '../src/index.js';
import type { Database } from '../src/platform/storage/index.js';
import { arg, log } from './lib/results.js';
import { openForSeeding, seed } from './lib/seed.js';

const rounds = Number(arg('rounds', '300'));
const SQL = 'SELECT ts, amount, category, note FROM ledger_entries ORDER BY ts, amount LIMIT 20';

const MODERN = '2026-07-28';
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'expense-bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

async function measure(engine: string, db: Database): Promise<string> {
  const [key] = await seed(db, { users: 1, rowsPerWorkspace: 50 });
  const app = await createServer(
    { logLevel: 'silent', ratePerSecond: 1_000_000, ratePerDay: 100_000_000 },
    { database: db },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const auth = { authorization: `ApiKey ${key!.apiKey}` };
  try {
    const http = async () => {
      const res = await fetch(`${origin}/v1/sql/query`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ sql: SQL }),
      });
      const body = (await res.json()) as { ok: boolean };
      if (!body.ok) throw new Error(`query failed: ${JSON.stringify(body)}`);
    };
    let id = 0;
    const tool = (revision: string) => async () => {
      const modern = revision === MODERN;
      const res = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': revision,
          // The 2026-07-28 revision names the method and tool in headers and the client in _meta (as the v2 client sends them).
          ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'query' } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: {
            name: 'query',
            arguments: { sql: SQL },
            ...(modern ? { _meta: modernMeta } : {}),
          },
        }),
      });
      const text = await res.text();
      if (!text.includes('"structuredContent"'))
        throw new Error(`tool failed (${revision}): ${text.slice(0, 500)}`);
    };
    const kinds = [
      ['http', http],
      ['mcp2025', tool('2025-11-25')],
      ['mcp2026', tool(MODERN)],
    ] as const;
    for (let i = 0; i < 30; i++) await kinds[i % 3]![1](); // warm-up
    const times = { http: [] as number[], mcp2025: [] as number[], mcp2026: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      // Rotate which goes first, so none always follows another.
      for (let k = 0; k < kinds.length; k++) {
        const [name, once] = kinds[(i + k) % kinds.length]!;
        const started = performance.now();
        await once();
        times[name].push(performance.now() - started);
      }
    }
    const ms = (xs: number[]) => `${median(xs).toFixed(2)} | ${p95(xs).toFixed(2)}`;
    const ratio = (xs: number[]) => `${(median(xs) / median(times.http)).toFixed(2)}x`;
    log(
      `${engine}: ${median(times.http).toFixed(2)} ms route, ${median(times.mcp2025).toFixed(2)} ms tool (2025-11-25), ${median(times.mcp2026).toFixed(2)} ms tool (2026-07-28)`,
    );
    return `| ${engine} | ${ms(times.http)} | ${ms(times.mcp2025)} | ${ratio(times.mcp2025)} | ${ms(times.mcp2026)} | ${ratio(times.mcp2026)} |`;
  } finally {
    await app.close();
  }
}

const engines = arg('engines', 'postgres,pglite').split(',');
const lines = [
  `${rounds} requests of each kind, interleaved; milliseconds per request over a socket (keep-alive), 20 rows of a 50-row workspace.`,
  '',
  '| engine | POST /v1/sql/query median | p95 | query tool, 2025-11-25, median | p95 | ratio | query tool, 2026-07-28, median | p95 | ratio |',
  '|---|---|---|---|---|---|---|---|---|',
];
if (engines.includes('postgres')) {
  const pg = await freshPostgres({ prefix: 'expense_mcp' });
  try {
    const db = await openForSeeding({ databaseUrl: pg.url });
    try {
      lines.push(await measure('PostgreSQL', db));
    } finally {
      await db.close();
    }
  } finally {
    await pg.drop();
  }
}
if (engines.includes('pglite')) {
  const dir = await mkdtemp(join(tmpdir(), 'expense-mcp-'));
  try {
    const db = await openForSeeding({ dataDir: dir });
    try {
      lines.push(await measure('PGlite', db));
    } finally {
      await db.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
