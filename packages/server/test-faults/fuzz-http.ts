// `pnpm fuzz` (part 2): fast-check generated methods, paths, headers and bodies against every route of a live
// server on 127.0.0.1 (PostgreSQL). Invariants: no 5xx, no dropped connection, and every answer is the envelope
// (X-Request-Id, ok/data or ok:false/error with a snake_case code, no stack trace), except the OpenAPI document
// and bodiless answers (HEAD, 204).
// The paths it sends are spelt as raw strings on purpose: near-misses, unknown and malformed paths are the input.
//   node --conditions=@expense/source --import tsx test-faults/fuzz-http.ts [--count 20000] [--seed n]
import { randomUUID } from 'node:crypto';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import fc from 'fast-check';
import { call, callRoute, envelopeProblem, type HttpResponse } from '../bench/lib/http.js';
import { machineInfo } from '../bench/lib/machine.js';
import { arg, log, writeResult } from '../bench/lib/results.js';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { writeReport } from '../bench/lib/write-report.js';

const COUNT = Number(arg('count', '20000'));
const SEED = Number(arg('seed', String(Date.now() % 2 ** 31)));
const CONCURRENCY = 8;

const db = await freshPostgres({ prefix: 'expense_fuzz_http' });
const seeding = await openForSeeding({ databaseUrl: db.url });
const keys = await seed(seeding, { users: 3, workspacesPerUser: 2, rowsPerWorkspace: 30 });
await seeding.close();
// High limits so that the requests reach the handlers behind the limiter (the load suite tests the limits).
const server = await startServerProcess({
  env: { DATABASE_URL: db.url, EXPENSE_RATE_PER_SECOND: '100000', EXPENSE_RATE_PER_DAY: '100000000' },
});

const own = keys[0]!;
const ids = fc.oneof(
  fc.constantFrom(
    ...own.workspaceIds,
    ...keys[1]!.workspaceIds,
    own.userId,
    keys[2]!.userId,
    own.connectionId,
  ),
  fc.uuid().map(String),
  fc.constantFrom(
    'not-a-uuid',
    '0',
    '',
    '%00',
    '..%2f..',
    'null',
    "' OR 1=1 --",
    'a'.repeat(5000),
    '%E0%A4%A',
  ),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
);
const path = fc.oneof(
  fc.constantFrom(
    '/',
    '/v1',
    '/v1/',
    '/v1/agent',
    '/v1/openapi.json',
    '/v1/swagger.json',
    '/v1/me',
    '/v1/workspaces',
    '/v1/schema',
    '/v1/sql/query',
    '/v1/sql/execute',
    '/v1/sql',
    '/v1/keys',
    '/v1/healthz',
    '/v1/readyz',
    '/api/agent/send-code',
    '/api/agent/verify-code',
    '/v2/me',
    '/v1/sql/',
    '/v1//sql',
    '/V1/ME',
    '/v1/me?x=1&x=2',
  ),
  ids.map((id) => `/v1/workspaces/${id}/select`),
  ids.map((id) => `/v1/workspaces/${id}/members`),
  fc.tuple(ids, ids).map(([w, u]) => `/v1/workspaces/${w}/members/${u}`),
  ids.map((id) => `/v1/keys/${id}`).filter((p) => !p.endsWith(own.connectionId)),
  fc.webPath().map((p) => `/v1${p}`),
);
const method = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS');
const sqlText = fc.oneof(
  fc.constantFrom(
    'SELECT * FROM ledger_entries',
    'SELECT count(*) FROM ledger_entries; SELECT 1',
    "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01T00:00:00Z', 'f', -1, 'USD', 'spend')",
    'DELETE FROM ledger_entries WHERE amount > 1000',
    'SELECT pg_sleep(10)',
    'DROP TABLE ledger_entries',
    'SELECT * FROM expense_internal.api_keys',
    '',
    ';',
    'SELECT 1/0',
    "SELECT 'x'::int",
    'UPDATE ledger_entries SET amount = amount',
  ),
  fc.string({ maxLength: 300 }),
);
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      { sql: sqlText, dryRun: fc.oneof(fc.boolean(), fc.constant(undefined), fc.jsonValue()) },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        email: fc.oneof(fc.emailAddress(), fc.string(), fc.jsonValue()),
        name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue()),
        label: fc.string(),
        code: fc.oneof(fc.stringMatching(/^\d{8}$/), fc.jsonValue()),
        otpSessionToken: fc.string(),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.object() },
);
const rawBody = fc.oneof(
  { weight: 8, arbitrary: body.map((b) => JSON.stringify(b) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      '{"sql": "SELECT 1"',
      '[]',
      'null',
      '"x"',
      '{"sql": "\\ud800"}',
      `{"sql": "${'x'.repeat(100_001)}"}`,
      `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      'x'.repeat(1_100_000),
      '{"__proto__": {"ok": true}, "sql": "SELECT 1"}',
      '{"constructor": {"prototype": {"ok": 1}}}',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  '',
  undefined,
);
const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`ApiKey ${own.apiKey}`) },
  { weight: 1, arbitrary: fc.constant(`ApiKey ${keys[1]!.apiKey}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'ApiKey',
      'ApiKey exp_live_x',
      'Bearer x',
      `apikey   ${own.apiKey}  `,
      `ApiKey ${own.apiKey}x`,
      'Basic YTpi',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const extraHeaders = fc.record(
  {
    'x-workspace-id': ids.map((v) => v.replace(/[^\x20-\x7e]/g, '').slice(0, 4000)),
    'idempotency-key': fc.oneof(
      fc.uuid().map(String),
      fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    ),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
  },
  { requiredKeys: [] },
);
/** Every route with its own method, so that most requests get past routing to validation and handlers. */
const routed = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['GET', '/'],
    ['GET', '/v1/'],
    ['GET', '/v1/agent'],
    ['GET', '/v1/openapi.json'],
    ['GET', '/v1/me'],
    ['GET', '/v1/workspaces'],
    ['POST', '/v1/workspaces'],
    ['GET', '/v1/schema'],
    ['POST', '/v1/sql/query'],
    ['POST', '/v1/sql/query'],
    ['POST', '/v1/sql/execute'],
    ['POST', '/v1/sql/execute'],
    ['POST', '/v1/sql'],
    ['POST', '/v1/sql'],
    ['GET', '/v1/keys'],
    ['GET', '/v1/healthz'],
    ['GET', '/v1/readyz'],
    ['POST', '/api/agent/send-code'],
    ['POST', '/api/agent/verify-code'],
  ),
  ids.map((id): [string, string] => ['POST', `/v1/workspaces/${id}/select`]),
  ids.map((id): [string, string] => ['GET', `/v1/workspaces/${id}/members`]),
  ids.map((id): [string, string] => ['POST', `/v1/workspaces/${id}/members`]),
  fc.tuple(ids, ids).map(([w, u]): [string, string] => ['DELETE', `/v1/workspaces/${w}/members/${u}`]),
  ids.filter((id) => id !== own.connectionId).map((id): [string, string] => ['DELETE', `/v1/keys/${id}`]),
);
const request = fc.oneof(
  { weight: 3, arbitrary: fc.record({ method, path, rawBody, contentType, auth, extraHeaders }) },
  {
    weight: 7,
    arbitrary: fc
      .record({
        route: routed,
        rawBody,
        contentType: fc.oneof(
          { weight: 5, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: contentType },
        ),
        auth,
        extraHeaders,
      })
      .map(({ route, ...r }) => ({ ...r, method: route[0], path: route[1] })),
  },
);
type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

const statuses: Record<string, number> = {};
const codes: Record<string, number> = {};
/** Failure classes (status and problem) with a count and the first example of each. */
const failureClasses = new Map<string, { count: number; example: string }>();
const fail = (signature: string, example: string) => {
  const c = failureClasses.get(signature);
  if (c) c.count++;
  else failureClasses.set(signature, { count: 1, example: example.slice(0, 300) });
};
let sent = 0;
const started = performance.now();

async function send(r: Generated) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.extraHeaders)) if (v !== undefined) headers[k] = v;
  if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  if (r.auth !== undefined) headers.authorization = r.auth;
  let res: HttpResponse;
  try {
    res = await call(server.origin, r.method, r.path, {
      headers,
      ...(r.rawBody !== undefined && r.method !== 'GET' && r.method !== 'HEAD' ? { rawBody: r.rawBody } : {}),
      timeoutMs: 60_000,
    });
  } catch (error) {
    fail(`network error ${String(error).slice(0, 60)}`, `${r.method} ${r.path.slice(0, 80)}`);
    return;
  }
  sent++;
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  const code = res.body?.error?.code;
  if (code) codes[code] = (codes[code] ?? 0) + 1;
  const where = `${r.method} ${r.path.slice(0, 80)} (${(r.rawBody ?? '').slice(0, 80)})`;
  if (res.status >= 500) fail(`${res.status} ${code ?? ''}`, `${where}: ${res.text.slice(0, 200)}`);
  const exempt = r.method === 'HEAD' || (res.status === 200 && /^\/v1\/(openapi|swagger)\.json/.test(r.path));
  const problem = exempt ? undefined : envelopeProblem(res);
  if (problem) fail(`${res.status} ${problem}`, `${where}: ${res.text.slice(0, 160)}`);
}

try {
  const samples = fc.sample(request, { numRuns: COUNT, seed: SEED });
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < samples.length) await send(samples[next++]!);
    }),
  );
  // The server still serves after all of it.
  const me = await callRoute(server.origin, ROUTE_PATHS.me, { key: own.apiKey });
  if (me.status !== 200) fail('not serving after the run', `GET /v1/me answers ${me.status}`);
} finally {
  await server.stop();
  await db.drop();
}
const seconds = (performance.now() - started) / 1000;
const failures = [...failureClasses.entries()].map(([signature, c]) => ({ signature, ...c }));
const ok = failures.length === 0;
log(
  `fuzz http: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), seed ${SEED}, statuses ${JSON.stringify(statuses)}: ${ok ? 'ok' : 'FAILED'}`,
);
for (const f of failures) log(`  ${f.count} x ${f.signature}, e.g. ${f.example}`);
log(
  `wrote ${writeResult('fuzz-http', { machine: await machineInfo(), command: `test-faults/fuzz-http.ts --count ${COUNT} --seed ${SEED}`, seed: SEED, requests: sent, seconds: Math.round(seconds * 10) / 10, requestsPerSecond: Math.round(sent / seconds), statuses, codes, failures, ok, id: randomUUID() })}`,
);
writeReport();
process.exit(ok ? 0 : 1);
