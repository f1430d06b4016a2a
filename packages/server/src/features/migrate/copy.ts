/**
 * The copy of `migrate-to`: every table of the source (the embedded engine) into a migrated, empty target
 * (PostgreSQL), in one transaction on the target, then counted and checksummed on both sides before it commits.
 *
 * - Driven by the catalog (catalog.ts): every table of the migrations' schemas, in foreign-key order.
 * - Values travel as PostgreSQL's own text of each column and are cast back to the column's type on the target
 *   (what COPY does): exact for numeric, timestamps to the microsecond, jsonb, bytea, NULL.
 * - The target's triggers are disabled for the copy and enabled again before the commit (ALTER TABLE ... DISABLE
 *   TRIGGER, which the owner may do; transactional): nothing records history, stamps updated_at, fills change
 *   groups or notifies; foreign keys (internal triggers) are still checked. Identity columns take the copied values
 *   (OVERRIDING SYSTEM VALUE) and every sequence is set to the source's value, and past the largest copied one.
 * - It runs as the connecting role, which must own the tables (the role the migrations ran as): row-level security
 *   stays on; the owner's policies admit it.
 */
import type { Database, Queryable } from '../../platform/storage/database.js';
import { quoteIdent } from '../portability/columns.js';
import { type Catalog, type CatalogTable, checkSameSchema, copyOrder, readCatalog } from './catalog.js';
import { MigrateError } from './errors.js';

/** Not copied: the target's own rows, which its migrations wrote (the same migrations: compared instead). */
const SKIPPED: Readonly<Record<string, string>> = {
  'expense_internal.schema_migrations': "the target's own record of the same migrations",
};

/**
 * Rows the target's migrations wrote, replaced by the source's: the change history's bounds, and the secret that
 * signs confirmation tokens (a token issued before the move still verifies after it, and is still single use:
 * confirmations_used is copied). A new migration that seeds a table must be named here, or every target is
 * refused as not empty, naming that table.
 */
const SEEDED: ReadonlySet<string> = new Set([
  'expense_internal.change_history_limits',
  'expense_internal.confirmation_secrets',
]);

/** Rows not worth keeping, left behind (and counted as such). */
const FILTERS: Readonly<Record<string, { where: string; why: string }>> = {
  'expense_internal.idempotency_records': {
    where: "t.state = 'completed' AND t.expires_at > now()",
    why: 'pending claims and expired records are not kept',
  },
};

/** Output formats the same on both engines, so text values and checksums compare. */
const TEXT_SETTINGS =
  "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL IntervalStyle = 'postgres'; " +
  "SET LOCAL extra_float_digits = 3; SET LOCAL bytea_output = 'hex'";

/** How long the copy waits for another session's lock on a target table before it refuses. */
const LOCK_WAIT = '30s';

export interface TableCopy {
  table: string;
  /** Rows copied; the same number counted on both sides, with the same checksum. */
  rows: number;
  /** Rows of the source not copied on purpose (FILTERS). */
  leftBehind: number;
  why?: string;
  /** The sum of each row's hash (md5 of its text, 60 bits), as a decimal string. */
  checksum: string;
}

export interface WorkspaceCheck {
  workspaceId: string;
  name: string;
  /** Rows per ledger relation (the tables of schema public with a workspace_id), equal on both sides. */
  tables: Record<string, number>;
  checksum: string;
}

export interface MigrateReport {
  tables: TableCopy[];
  skipped: { table: string; why: string }[];
  workspaces: WorkspaceCheck[];
  rows: number;
  sequences: number;
  triggers: number;
  ms: number;
}

export interface CopyOptions {
  /** Rows per round trip (default 2000). */
  batchRows?: number;
  /** After each table is copied (awaited): progress output. */
  onTable?: (copied: { table: string; rows: number; index: number; of: number }) => void | Promise<void>;
}

const columnsOf = (table: CatalogTable) => table.columns.filter((c) => !c.generated);

/** A row's hash: the first 60 bits of the md5 of its text, summed over the rows (no sort, any order). */
function rowHash(table: CatalogTable): string {
  const values = columnsOf(table)
    .map((c) => `t.${quoteIdent(c.name)}`)
    .join(', ');
  return `('x' || substr(md5(ROW(${values})::text), 1, 15))::bit(60)::bigint`;
}

const whereOf = (table: string) => (FILTERS[table] ? ` WHERE ${FILTERS[table].where}` : '');

interface Tally {
  rows: number;
  checksum: string;
}

async function tally(db: Queryable, table: CatalogTable, where: string): Promise<Tally> {
  const { rows } = await db.query<{ n: string; h: string }>(
    `SELECT count(*)::text AS n, coalesce(sum(${rowHash(table)}), 0)::text AS h FROM ONLY ${table.sql} AS t${where}`,
  );
  return { rows: Number(rows[0]?.n ?? 0), checksum: rows[0]?.h ?? '0' };
}

/** Per workspace: rows and checksum of one ledger relation, keyed by workspace id. */
async function tallyByWorkspace(db: Queryable, table: CatalogTable): Promise<Map<string, Tally>> {
  const { rows } = await db.query<{ w: string; n: string; h: string }>(
    `SELECT t.workspace_id::text AS w, count(*)::text AS n, sum(${rowHash(table)})::text AS h
     FROM ONLY ${table.sql} AS t GROUP BY 1`,
  );
  return new Map(rows.map((r) => [r.w, { rows: Number(r.n), checksum: r.h }]));
}

const isLedger = (table: CatalogTable) =>
  table.schema === 'public' && table.columns.some((c) => c.name === 'workspace_id');

/** Copies one table through a cursor on the source, `batch` rows per INSERT on the target. */
async function copyTable(
  src: Queryable,
  dst: Queryable,
  table: CatalogTable,
  batch: number,
): Promise<number> {
  const columns = columnsOf(table);
  const aliases = columns.map((_, i) => `c${i}`);
  await src.query(
    `DECLARE migrate_rows NO SCROLL CURSOR FOR SELECT ${columns
      .map((c, i) => `t.${quoteIdent(c.name)}::text AS ${aliases[i]}`)
      .join(', ')} FROM ONLY ${table.sql} AS t${whereOf(table.name)}`,
  );
  const insert = `INSERT INTO ${table.sql} (${columns.map((c) => quoteIdent(c.name)).join(', ')})
    OVERRIDING SYSTEM VALUE
    SELECT ${columns.map((c, i) => `u.${aliases[i]}::${c.type}`).join(', ')}
    FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${aliases.join(', ')})`;
  const fetch = () =>
    src.query<Record<string, string | null>>(`FETCH FORWARD ${batch} FROM migrate_rows`).then((r) => r.rows);
  // The next batch is read (embedded engine, its worker thread) while this one is written (PostgreSQL).
  let copied = 0;
  let next = fetch();
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    next = rows.length < batch ? Promise.resolve([]) : fetch();
    try {
      await dst.query(
        insert,
        aliases.map((alias) => rows.map((row) => row[alias] ?? null)),
      );
    } catch (error) {
      await next.catch(() => {}); // nothing left running on the source when its transaction ends
      throw error;
    }
    copied += rows.length;
  }
  await src.query('CLOSE migrate_rows');
  return copied;
}

async function sameMigrations(src: Queryable, dst: Queryable): Promise<void> {
  const applied = async (db: Queryable) =>
    (
      await db.query<{ v: string }>(
        `SELECT string_agg(version || ':' || checksum, ',' ORDER BY version) AS v
         FROM expense_internal.schema_migrations`,
      )
    ).rows[0]?.v ?? '';
  if ((await applied(src)) !== (await applied(dst))) {
    throw new MigrateError(
      'migrate_schema_mismatch',
      'The embedded database and the target record different migrations. Nothing was copied.',
      'Run migrate-to with the version of expense-server that will serve the target: it migrates both to its own migrations first.',
    );
  }
}

async function refuseUnlessOwner(dst: Queryable, names: string[]): Promise<void> {
  const { rows } = await dst.query<{ name: string; role: string }>(
    `SELECT n.nspname || '.' || c.relname AS name, current_user AS role
     FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
     WHERE (n.nspname || '.' || c.relname) = ANY ($1::text[])
       AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.rolname = current_user)
       AND NOT pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE')
     ORDER BY 1`,
    [names],
  );
  if (rows.length > 0) {
    throw new MigrateError(
      'migrate_target_not_owner',
      `The role ${rows[0]?.role} does not own ${rows.map((r) => r.name).join(', ')} on the target: the copy runs as the tables' owner. Nothing was copied.`,
      'Connect as the role that owns the tables (the one the server connects as, which ran the migrations), in the URL given to migrate-to.',
    );
  }
}

async function refuseUnlessEmpty(dst: Queryable, tables: CatalogTable[]): Promise<void> {
  if (tables.length === 0) return;
  const { rows } = await dst.query<{ name: string; n: number }>(
    tables
      .map(
        (t) =>
          `SELECT '${t.name.replaceAll("'", "''")}'::text AS name, (SELECT count(*) FROM (SELECT 1 FROM ONLY ${t.sql} LIMIT 1001) AS x)::int AS n`,
      )
      .join(' UNION ALL '),
  );
  const full = rows.filter((r) => r.n > 0);
  if (full.length > 0) {
    throw new MigrateError(
      'migrate_target_not_empty',
      `The target holds data already: ${full
        .map((r) => `${r.name} (${r.n > 1000 ? 'over 1000' : r.n} rows)`)
        .join(', ')}. Nothing was copied; the target is unchanged.`,
      'Migrate into a new, empty database (e.g. `createdb expense`): migrate-to never merges into or overwrites data. If a server already runs on that database with its own users, this is not the database to move into.',
    );
  }
}

interface Trigger {
  table: string;
  sql: string;
  name: string;
  enabled: string;
}

/** Disables every enabled user trigger of the tables; answers them, to enable them again as they were. */
async function disableTriggers(dst: Queryable, tables: CatalogTable[]): Promise<Trigger[]> {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const { rows } = await dst.query<{ table: string; name: string; enabled: string }>(
    `SELECT n.nspname || '.' || c.relname AS table, t.tgname AS name, t.tgenabled::text AS enabled
     FROM pg_catalog.pg_trigger AS t
     JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid
     JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
     WHERE NOT t.tgisinternal AND t.tgenabled <> 'D'
     ORDER BY 1, 2`,
  );
  const triggers = rows.flatMap((r) => {
    const table = byName.get(r.table);
    return table ? [{ table: r.table, sql: table.sql, name: r.name, enabled: r.enabled }] : [];
  });
  if (triggers.length > 0) {
    await dst.query(
      triggers.map((t) => `ALTER TABLE ${t.sql} DISABLE TRIGGER ${quoteIdent(t.name)}`).join('; '),
    );
  }
  return triggers;
}

async function enableTriggers(dst: Queryable, triggers: Trigger[]): Promise<void> {
  const how: Record<string, string> = { O: 'ENABLE', A: 'ENABLE ALWAYS', R: 'ENABLE REPLICA' };
  if (triggers.length === 0) return;
  await dst.query(
    triggers
      .map((t) => `ALTER TABLE ${t.sql} ${how[t.enabled] ?? 'ENABLE'} TRIGGER ${quoteIdent(t.name)}`)
      .join('; '),
  );
}

/** Every sequence as the source left it, and past the largest value of the column it feeds. */
async function copySequences(src: Queryable, dst: Queryable, catalog: Catalog): Promise<number> {
  let set = 0;
  for (const sequence of catalog.sequences.values()) {
    const { rows } = await src.query<{ v: string; called: boolean }>(
      `SELECT last_value::text AS v, is_called AS called FROM ${sequence.sql}`,
    );
    const state = rows[0];
    if (!state) continue;
    let value = BigInt(state.v);
    let called = state.called;
    const owner = sequence.owner && catalog.tables.get(sequence.owner.table);
    if (owner && sequence.owner) {
      const max = (
        await dst.query<{ m: string | null }>(
          `SELECT max(${quoteIdent(sequence.owner.column)})::text AS m FROM ONLY ${owner.sql}`,
        )
      ).rows[0]?.m;
      if (max != null && (BigInt(max) > value || (BigInt(max) === value && !called))) {
        value = BigInt(max);
        called = true;
      }
    }
    await dst.query('SELECT pg_catalog.setval($1::regclass, $2::bigint, $3::boolean)', [
      sequence.sql,
      value.toString(),
      called,
    ]);
    set++;
  }
  return set;
}

/** What went wrong, as a coded error: refusals pass through, the rest failed the copy (rolled back). */
function failure(error: unknown, stage: string): MigrateError {
  if (error instanceof MigrateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown }).code === '55P03') {
    return new MigrateError(
      'migrate_target_busy',
      `Another session holds a table of the target (waited ${LOCK_WAIT}): ${message}. Nothing was copied.`,
      'Stop every server and client using the target database, then run migrate-to again.',
      { cause: error },
    );
  }
  return new MigrateError(
    'migrate_copy_failed',
    `The copy failed ${stage}: ${message}. The target's transaction was rolled back: it holds nothing of the copy.`,
    'Fix the cause named above (the target database, its connection, its disk) and run migrate-to again; the embedded data folder is untouched.',
    { cause: error },
  );
}

/**
 * Copies `source` into `target` (both migrated by this server): refuses a target that holds data, and verifies
 * every table's count and checksum, and the ledger's per workspace, before the target's transaction commits.
 */
export async function copyDatabase(
  source: Database,
  target: Database,
  options: CopyOptions = {},
): Promise<MigrateReport> {
  const started = performance.now();
  const batch = options.batchRows ?? 2000;
  let stage = 'before any table was copied';
  let committing = false;
  let committed: MigrateReport | undefined;
  try {
    return await source.transaction(async (src) => {
      await src.query(`SET TRANSACTION READ ONLY; ${TEXT_SETTINGS}`);
      const catalog = await readCatalog(src);
      const report = await target.transaction(async (dst) => {
        await dst.query(
          `${TEXT_SETTINGS}; SET LOCAL lock_timeout = '${LOCK_WAIT}'; SET LOCAL statement_timeout = 0`,
        );
        checkSameSchema(catalog, await readCatalog(dst));
        for (const name of [...Object.keys(SKIPPED), ...SEEDED, ...Object.keys(FILTERS)]) {
          if (!catalog.tables.has(name)) {
            throw new MigrateError(
              'migrate_schema_mismatch',
              `migrate-to's copy plan names ${name}, which the schema lacks. Nothing was copied.`,
              'This version of expense-server cannot move this database: report it (the plan in src/features/migrate/copy.ts needs the new schema).',
            );
          }
        }
        await sameMigrations(src, dst);
        const order = copyOrder(
          catalog,
          [...catalog.tables.keys()].filter((name) => !(name in SKIPPED)),
        );
        const tables = order.map((name) => catalog.tables.get(name) as CatalogTable);
        await refuseUnlessOwner(dst, order);
        // Refused at once when it holds data; checked again under the locks (nothing writes it in between).
        const userTables = tables.filter((t) => !SEEDED.has(t.name));
        await refuseUnlessEmpty(dst, userTables);
        await dst.query(`LOCK TABLE ${tables.map((t) => t.sql).join(', ')} IN ACCESS EXCLUSIVE MODE`);
        await refuseUnlessEmpty(dst, userTables);
        const triggers = await disableTriggers(dst, tables);
        for (const name of SEEDED) await dst.query(`DELETE FROM ONLY ${catalog.tables.get(name)?.sql}`);

        let rows = 0;
        for (const [index, table] of tables.entries()) {
          stage = `while copying ${table.name}, after ${index} of ${tables.length} tables`;
          const copied = await copyTable(src, dst, table, batch);
          rows += copied;
          await options.onTable?.({ table: table.name, rows: copied, index, of: tables.length });
        }
        stage = 'while setting the sequences';
        const sequences = await copySequences(src, dst, catalog);
        stage = 'while enabling the triggers again';
        await enableTriggers(dst, triggers);

        stage = 'while verifying';
        const copies: TableCopy[] = [];
        const problems: string[] = [];
        const names = new Map(
          (
            await src.query<{ id: string; name: string }>(
              'SELECT workspace_id::text AS id, name FROM expense_internal.workspaces',
            )
          ).rows.map((r) => [r.id, r.name]),
        );
        const perWorkspace = new Map<string, { tables: Record<string, number>; checksum: bigint }>(
          [...names.keys()].map((id) => [id, { tables: {}, checksum: 0n }]),
        );
        for (const table of tables) {
          const where = whereOf(table.name);
          let from: Tally;
          let to: Tally;
          if (isLedger(table)) {
            const [a, b] = [await tallyByWorkspace(src, table), await tallyByWorkspace(dst, table)];
            for (const id of new Set([...names.keys(), ...a.keys(), ...b.keys()])) {
              const [x, y] = [a.get(id), b.get(id)];
              if (x?.rows !== y?.rows || x?.checksum !== y?.checksum) {
                problems.push(
                  `${table.name} of workspace ${id}: ${x?.rows ?? 0} rows here, ${y?.rows ?? 0} on the target${x?.rows === y?.rows ? ' (checksums differ)' : ''}`,
                );
              }
              const entry = perWorkspace.get(id) ?? { tables: {}, checksum: 0n };
              entry.tables[table.name] = x?.rows ?? 0;
              entry.checksum += BigInt(x?.checksum ?? '0');
              perWorkspace.set(id, entry);
            }
            const sum = (m: Map<string, Tally>): Tally => ({
              rows: [...m.values()].reduce((n, t) => n + t.rows, 0),
              checksum: [...m.values()].reduce((n, t) => n + BigInt(t.checksum), 0n).toString(),
            });
            [from, to] = [sum(a), sum(b)];
          } else {
            [from, to] = [await tally(src, table, where), await tally(dst, table, '')];
          }
          if (from.rows !== to.rows || from.checksum !== to.checksum) {
            problems.push(
              `${table.name}: ${from.rows} rows here, ${to.rows} on the target${from.rows === to.rows ? ' (checksums differ)' : ''}`,
            );
          }
          const all = where ? (await tally(src, table, '')).rows : from.rows;
          copies.push({
            table: table.name,
            rows: to.rows,
            leftBehind: all - from.rows,
            ...(where ? { why: FILTERS[table.name]?.why } : {}),
            checksum: to.checksum,
          });
        }
        if (problems.length > 0) {
          throw new MigrateError(
            'migrate_verification_failed',
            `The copy does not match the embedded database: ${problems.join('; ')}. The target's transaction was rolled back: it holds nothing of the copy.`,
            'Report this with the output above (a value that does not survive the move); the embedded data folder is untouched and keeps serving.',
          );
        }
        committing = true;
        return {
          tables: copies,
          skipped: Object.entries(SKIPPED).map(([table, why]) => ({ table, why })),
          workspaces: [...perWorkspace]
            .map(([workspaceId, w]) => ({
              workspaceId,
              name: names.get(workspaceId) ?? '(no name)',
              tables: w.tables,
              checksum: w.checksum.toString(),
            }))
            .sort((a, b) => a.name.localeCompare(b.name) || a.workspaceId.localeCompare(b.workspaceId)),
          rows,
          sequences,
          triggers: triggers.length,
          ms: 0,
        } satisfies MigrateReport;
      });
      committed = { ...report, ms: Math.round(performance.now() - started) };
      return committed;
    });
  } catch (error) {
    // The target committed; only the end of the source's read-only transaction failed.
    if (committed) return committed;
    if (committing && !(error instanceof MigrateError)) {
      throw new MigrateError(
        'migrate_outcome_unknown',
        `The connection to the target was lost while committing the copy: ${error instanceof Error ? error.message : String(error)}. It may or may not have committed.`,
        'Run migrate-to again: if the copy committed, the target is refused as not empty (then start the server on it); if not, it copies again. The embedded data folder is untouched.',
        { cause: error },
      );
    }
    throw failure(error, stage);
  }
}
