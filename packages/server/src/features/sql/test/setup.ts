// Real servers for the SQL API tests: a fresh database per file (PGlite in memory, or a random PostgreSQL
// database dropped after: the engines of @expense/test-kit), served over a real socket on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import { type EngineSpec, type RequestOptions, type Response, request, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { type CreateServerOptions, createServer, type ServerConfigInput } from '../../../index.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';
import { createWorkspace } from '../../workspaces/store.js';

export {
  ENGINES,
  type EngineSpec,
  engineSelected,
  type Json,
  PGLITE,
  POSTGRES,
  type RequestOptions,
  type Response,
  request,
} from '@expense/test-kit';

export interface Live {
  app: FastifyInstance;
  db: Database;
  /** The origin, e.g. http://127.0.0.1:43117 (the API is under /v1). */
  origin: string;
  databaseUrl: string;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts a server on a fresh database of the engine; rate limits are high unless the test sets them.
 * `options` go to createServer beside the database (e.g. trustProxy, keyCache).
 */
export async function startLive(
  engine: EngineSpec,
  config: ServerConfigInput = {},
  options: Omit<CreateServerOptions, 'database'> = {},
): Promise<Live> {
  const target = await engine.open();
  const db = await openDatabase({ databaseUrl: target.url, directUrl: target.directUrl });
  const app = await createServer(
    { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000, ...config },
    { ...options, database: db },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    db,
    origin,
    databaseUrl: target.url,
    request: (method, path, options) => request(origin, method, path, options),
    async close() {
      try {
        await app.close();
        await db.close();
      } finally {
        await target.drop();
      }
    },
  };
}

export interface LiveWorkspace {
  live: Live;
  user: TestUser;
  workspaceId: string;
}

/** startLive, and a user (createUser) with a workspace (addWorkspace): what most SQL suites start from. */
export async function startWithWorkspace(
  engine: EngineSpec,
  config: ServerConfigInput = {},
  options: Omit<CreateServerOptions, 'database'> = {},
): Promise<LiveWorkspace> {
  const live = await startLive(engine, config, options);
  try {
    const user = await createUser(live.db);
    return { live, user, workspaceId: await addWorkspace(live.db, user.userId) };
  } catch (error) {
    await live.close();
    throw error;
  }
}

export interface TestUser {
  userId: string;
  connectionId: string;
  apiKey: string;
  email: string;
}

/** A user with a fresh ApiKey, made directly in the database (sign-in has its own tests). */
export async function createUser(db: Database, label = 'test'): Promise<TestUser> {
  const email = `u-${randomUUID()}@example.test`;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string }>(
      'INSERT INTO expense_internal.users (email) VALUES ($1) RETURNING user_id',
      [email],
    );
    const userId = rows[0]!.user_id;
    const key = await createApiKey(tx, userId, label);
    return { userId, connectionId: key.connectionId, apiKey: key.apiKey, email };
  });
}

export async function addWorkspace(db: Database, userId: string, name = 'Home'): Promise<string> {
  return (await db.transaction((tx) => createWorkspace(tx, userId, name))).workspaceId;
}

/** An INSERT of n ledger rows for account `account` (amounts 1..n). */
export function insertEntries(n: number, account = 'checking', start = 1): string {
  const values = Array.from(
    { length: n },
    (_, i) => `(TIMESTAMPTZ '2026-01-01 00:00:00+00', '${account}', ${start + i}, 'EUR', 'spend', 'test')`,
  ).join(', ');
  return `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${values}`;
}

/**
 * Seeds `n` rows through POST /v1/sql/execute. Suites with a short SQL deadline can miss it on a loaded machine (the
 * first request after a start is the slowest); the envelope calls that retryable and nothing was written, so the
 * seeding sends it again, up to four times in all.
 */
export async function seedEntries(
  live: Live,
  apiKey: string,
  n: number,
  account = 'checking',
): Promise<void> {
  const send = () =>
    live.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: apiKey,
      body: { sql: insertEntries(n, account) },
    });
  let res = await send();
  for (let attempt = 1; attempt < 4 && res.status !== 200 && res.body?.error?.retryable === true; attempt++)
    res = await send();
  if (res.status !== 200) throw new Error(`seeding failed: ${res.text}`);
}

export const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
