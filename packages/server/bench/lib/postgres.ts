import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const ADMIN_URL =
  process.env.EXPENSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FreshDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A new, empty PostgreSQL database with a random name; drop() removes it (WITH (FORCE)). */
export async function freshDatabase(prefix = 'expense_proof'): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    name,
    url: withDatabase(ADMIN_URL, name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {}),
  };
}

/** One statement on the maintenance database, on a connection of its own. */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  params: unknown[] = [],
  url = ADMIN_URL,
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** `PostgreSQL 15.x` of the server at ADMIN_URL. */
export async function postgresVersion(): Promise<string> {
  const rows = await adminQuery<{ v: string }>("SELECT current_setting('server_version') AS v");
  return `PostgreSQL ${rows[0]?.v ?? '?'}`;
}
