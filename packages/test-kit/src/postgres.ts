// Fresh PostgreSQL databases on the local server (127.0.0.1:5432, user postgres, trust unless
// EXPENSE_TEST_POSTGRES_URL names another maintenance database): a random name each, dropped after.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The maintenance database the fresh databases are created from. */
export const ADMIN_URL =
  process.env.EXPENSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FreshPostgres {
  /** The database's name (`<prefix>_<12 hex digits>`). */
  name: string;
  /** Its URL: ADMIN_URL with the database replaced. */
  url: string;
  /** Drops it (WITH (FORCE): connections still open are ended). Safe to call more than once. */
  drop(): Promise<void>;
}

export interface FreshPostgresOptions {
  /** The name's prefix (a lower-case SQL identifier); default `expense_test`. */
  prefix?: string;
  /** The role that owns the database; default the admin user. */
  owner?: string;
  /** A database to copy (CREATE DATABASE … TEMPLATE): e.g. the run's migrated one (see templates.ts). */
  template?: string;
}

/** ADMIN_URL pointed at another database of the same server. */
export function databaseUrl(name: string, base = ADMIN_URL): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** One statement on the maintenance database, on a connection of its own; returns the rows. */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  params: unknown[] = [],
  url = ADMIN_URL,
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  // DROP … WITH (FORCE) elsewhere may end this backend while it closes: not this statement's failure.
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A new, empty database with a random name; drop() removes it. */
export async function freshPostgres(options: FreshPostgresOptions = {}): Promise<FreshPostgres> {
  const prefix = options.prefix ?? 'expense_test';
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error(`not a database name prefix: ${prefix}`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const owner = options.owner ? ` OWNER ${quoteIdent(options.owner)}` : '';
  const template = options.template ? ` TEMPLATE ${quoteIdent(options.template)}` : '';
  await adminQuery(`CREATE DATABASE ${name}${owner}${template}`);
  if (options.template) await copyDatabaseSettings(options.template, name);
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: databaseUrl(name),
    drop: () => {
      dropped ??= adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {});
      return dropped;
    },
  };
}

/** Runs fn with a fresh database and drops it after, also when fn throws. */
export async function withFreshPostgres<T>(
  fn: (database: FreshPostgres) => Promise<T>,
  options: FreshPostgresOptions = {},
): Promise<T> {
  const database = await freshPostgres(options);
  try {
    return await fn(database);
  } finally {
    await database.drop();
  }
}

/** `PostgreSQL 15.x` of the server at ADMIN_URL. */
export async function postgresVersion(): Promise<string> {
  const rows = await adminQuery<{ v: string }>("SELECT current_setting('server_version') AS v");
  return `PostgreSQL ${rows[0]?.v ?? '?'}`;
}

/**
 * CREATE DATABASE … TEMPLATE copies the data but not the settings made with ALTER DATABASE / ALTER ROLE … IN
 * DATABASE (pg_db_role_setting is keyed by the database): copy them, so a copy is what migrating would have made.
 */
async function copyDatabaseSettings(from: string, to: string): Promise<void> {
  const rows = await adminQuery<{ role: string | null; setconfig: string[] }>(
    `SELECT r.rolname AS role, s.setconfig FROM pg_db_role_setting s
       JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole
      WHERE d.datname = $1`,
    [from],
  );
  for (const { role, setconfig } of rows) {
    for (const setting of setconfig) {
      const at = setting.indexOf('=');
      const [key, value] = [setting.slice(0, at), setting.slice(at + 1)];
      const target = role
        ? `ROLE ${quoteIdent(role)} IN DATABASE ${quoteIdent(to)}`
        : `DATABASE ${quoteIdent(to)}`;
      await adminQuery(`ALTER ${target} SET ${quoteIdent(key)} = '${value.replaceAll("'", "''")}'`);
    }
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
