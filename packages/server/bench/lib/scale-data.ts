// The data of the scale benchmark (issue 42), generated in SQL as the owner: INSERT … SELECT over generate_series,
// never through the API. Thousands of workspaces with a skewed spread of ledger entries (most small, about one in a
// hundred a household's ten years of ~20,000 entries), budgets, account metadata, members and change history.
//
// The target workspace (the one the benchmark measures) gets the same rows wherever it is generated: every value
// of a row is a function of the workspace's label and the row's number, never of random() or of the workspace's
// id, so the target alone in an empty database and the target among thousands hold the same entries, budgets and
// history. Rows are inserted in time order across workspaces, chunk by chunk, as a live service appends them, so a
// workspace's entries are spread over the table's pages rather than stored side by side.
//
// The ledger's indexes and its primary and unique keys are dropped for its load and built again from their own
// definitions after it (as pg_dump's restore does). The statement triggers that record history and take the history lock, the external_id and transfer checks
// (row triggers) and the settings check are disabled for the load (ALTER TABLE … DISABLE TRIGGER USER; on the
// ledger also its foreign key's trigger, whose check is then made once for all rows) and enabled again after it;
// the generated rows satisfy every check they make.
// Then VACUUM (ANALYZE), so that the planner knows the tables and autovacuum does not start during the measurement.
import type pg from 'pg';

export interface ScalePlan {
  /** Workspaces in all, the target included. */
  workspaces: number;
  /** Ledger entries in all, the target's included (about: the small workspaces' shares are rounded). */
  entries: number;
  /** The measured workspace, created beforehand by the server's own functions. */
  target: { workspaceId: string; userId: string; partnerId: string };
  /** Entries of the target (and of each other household of ten years). */
  targetEntries: number;
  /** Chunks of the time-ordered ledger load (each one INSERT … SELECT … ORDER BY ts). */
  chunks?: number;
  /** A statement that runs longer is cancelled (statement_timeout): the generation stays bounded. */
  statementTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ScaleCounts {
  workspaces: number;
  entries: number;
  budgetLines: number;
  accountMetadata: number;
  members: number;
  users: number;
  changes: number;
  changeRows: number;
  /** The target's own rows (ledger, budget lines, changes, change rows). */
  target: { entries: number; budgetLines: number; changes: number; changeRows: number };
  seconds: number;
}

/** The end of the generated decade (exclusive): entries run from ten years before it up to it. */
export const SCALE_END = '2026-07-01 00:00:00+00';
const DECADE_DAYS = 3650;

const USER_TABLES = ['ledger_entries', 'budget_lines', 'account_metadata', 'workspace_settings'];

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A 32-bit hash of an SQL text expression, deterministic on every PostgreSQL. */
const hash32 = (expr: string) => `('x' || substr(md5(${expr}), 1, 8))::bit(32)::bigint`;

export async function generateScale(client: pg.Client, plan: ScalePlan): Promise<ScaleCounts> {
  const log = plan.log ?? (() => {});
  const started = performance.now();
  const chunks = plan.chunks ?? 40;
  const step = async (label: string, sql: string, params: unknown[] = []) => {
    const t = performance.now();
    const r = await client.query(sql, params);
    log(
      `  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s${r.rowCount ? ` (${r.rowCount} rows)` : ''}`,
    );
    return r;
  };
  await client.query(`SET statement_timeout = ${Math.max(1000, plan.statementTimeoutMs ?? 20 * 60_000)}`);
  await client.query(
    // The database's temp_file_limit (migration 0013) bounds user SQL; the load's sorts may spill past it.
    "SET work_mem = '256MB'; SET maintenance_work_mem = '512MB'; SET synchronous_commit = off; SET temp_file_limit = -1",
  );
  await client.query("SET TimeZone = 'UTC'");

  // The plan: one row per workspace with its size, its time span, and the label its values are derived from.
  const others = Math.max(0, plan.workspaces - 1);
  const households = Math.max(
    0,
    Math.min(
      Math.round(plan.workspaces / 100) - 1,
      Math.floor(((plan.entries - plan.targetEntries) * 0.25) / plan.targetEntries),
      others,
    ),
  );
  const rest = Math.max(0, plan.entries - plan.targetEntries * (households + 1));
  await client.query('DROP TABLE IF EXISTS scale_plan');
  await client.query(`CREATE TEMP TABLE scale_plan (
    workspace_id uuid PRIMARY KEY, owner_id uuid NOT NULL, partner_id uuid, label text NOT NULL, n int NOT NULL,
    span_days int, start_ts timestamptz, step_s double precision, salt bigint, changes int, budgeted boolean)`);
  await step(
    'plan',
    `WITH g AS (
       SELECT g, md5('scale-w-' || g)::uuid AS workspace_id, md5('scale-u-' || g)::uuid AS owner_id,
              CASE WHEN g % 3 = 0 THEN md5('scale-p-' || g)::uuid END AS partner_id,
              power(${hash32("'scale-size-' || g")} / 4294967296.0, 3) AS w
       FROM generate_series(1, $1::int) AS g
     ), small AS (
       SELECT g.*, sum(w) OVER (ORDER BY g) AS cum, sum(w) OVER () AS total FROM g WHERE g > $2::int
     )
     INSERT INTO scale_plan (workspace_id, owner_id, partner_id, label, n)
     SELECT workspace_id, owner_id, partner_id, 'w' || g, $3::int FROM g WHERE g <= $2::int
     UNION ALL
     SELECT workspace_id, owner_id, partner_id, 'w' || g,
            greatest(1, floor($4::bigint * cum / total) - floor($4::bigint * (cum - w) / total))::int
     FROM small
     UNION ALL
     SELECT $5::uuid, $6::uuid, $7::uuid, 'target', $3::int`,
    [
      others,
      households,
      plan.targetEntries,
      rest,
      plan.target.workspaceId,
      plan.target.userId,
      plan.target.partnerId,
    ],
  );
  await client.query(
    `UPDATE scale_plan SET
       span_days = CASE WHEN n >= $1::int THEN ${DECADE_DAYS} ELSE least(${DECADE_DAYS}, greatest(30, ceil(n / 5.5)))::int END,
       salt = ${hash32("label || ':salt'")},
       changes = CASE WHEN label = 'target' THEN 500 ELSE greatest(1, ceil(n / 40.0))::int END,
       budgeted = label = 'target' OR ${hash32("label || ':budget'")} % 5 < 2`,
    [plan.targetEntries],
  );
  await client.query(
    `UPDATE scale_plan SET start_ts = TIMESTAMPTZ '${SCALE_END}' - span_days * INTERVAL '1 day',
       step_s = span_days * 86400.0 / n`,
  );
  await client.query('ANALYZE scale_plan');

  for (const t of USER_TABLES) await client.query(`ALTER TABLE public.${t} DISABLE TRIGGER USER`);
  // The ledger's foreign key too (its trigger looks the workspace up and locks it once per row): checked once for
  // all rows after the load instead.
  await client.query('ALTER TABLE public.ledger_entries DISABLE TRIGGER ALL');
  await client.query('ALTER TABLE expense_internal.changes DISABLE TRIGGER USER');
  try {
    // Users, workspaces, members, settings, account metadata of the other workspaces (the target has its own).
    await step(
      'users',
      `INSERT INTO expense_internal.users (user_id, email)
       SELECT owner_id, label || '@scale.example.com' FROM scale_plan WHERE label <> 'target'
       UNION ALL
       SELECT partner_id, label || '.partner@scale.example.com' FROM scale_plan WHERE label <> 'target' AND partner_id IS NOT NULL`,
    );
    await step(
      'workspaces',
      `INSERT INTO expense_internal.workspaces (workspace_id, name, created_by, created_at)
       SELECT workspace_id, 'household ' || label, owner_id, start_ts FROM scale_plan WHERE label <> 'target'`,
    );
    await step(
      'members',
      `INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role)
       SELECT workspace_id, owner_id, 'owner' FROM scale_plan WHERE label <> 'target'
       UNION ALL
       SELECT workspace_id, partner_id, 'member' FROM scale_plan WHERE partner_id IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );
    await step(
      'settings',
      `INSERT INTO public.workspace_settings (workspace_id, reporting_currency, timezone)
       SELECT workspace_id, 'USD', 'UTC' FROM scale_plan WHERE label <> 'target'`,
    );
    await step(
      'account metadata',
      `INSERT INTO public.account_metadata (workspace_id, account_id, display_name, account_type, liquidity)
       SELECT p.workspace_id, a.id, a.name, a.type, a.liq FROM scale_plan p
       CROSS JOIN (VALUES ('checking', 'Checking', 'checking', 'high'), ('card', 'Credit card', 'credit_card', 'high'),
                          ('savings', 'Savings', 'savings', 'medium')) AS a (id, name, type, liq)
       ON CONFLICT DO NOTHING`,
    );

    // The ledger's indexes are built after its load, from their own definitions (as pg_dump restores a table):
    // kept during an INSERT of millions of rows, every row would update six B-trees at random places, far larger
    // than shared_buffers. The same in both databases, so that the target's indexes are built alike.
    const { rows: constraints } = await client.query<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid = 'public.ledger_entries'::regclass AND contype IN ('p', 'u') ORDER BY conname`,
    );
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
       WHERE schemaname = 'public' AND tablename = 'ledger_entries' AND indexname <> ALL ($1::text[]) ORDER BY indexname`,
      [constraints.map((c) => c.name)],
    );
    for (const i of indexes) await client.query(`DROP INDEX public.${quoteIdent(i.name)}`);
    for (const c of constraints)
      await client.query(`ALTER TABLE public.ledger_entries DROP CONSTRAINT ${quoteIdent(c.name)}`);

    // The ledger, in time order across workspaces: chunk k holds every workspace's rows of the k-th slice of the
    // decade. Most workspaces are young (all are active at its end), so the slices narrow towards the end
    // (quadratically), which keeps each chunk's sort within memory.
    const decadeStart = Date.parse(SCALE_END) - DECADE_DAYS * 86_400_000;
    const sliceStart = (k: number) =>
      new Date(decadeStart + (1 - (1 - k / chunks) ** 2) * DECADE_DAYS * 86_400_000).toISOString();
    const h = '((i::bigint * 2654435761 + p.salt) % 4294967296)';
    for (let k = 0; k < chunks; k++) {
      await step(
        `ledger chunk ${k + 1}/${chunks}`,
        `WITH bounds AS (SELECT $3::timestamptz AS lo, $4::timestamptz AS hi), rows AS (
           SELECT p.workspace_id, p.label, i, ${h} AS h,
                  p.start_ts + ((i - 1) + (${h} % 1000) / 2000.0) * p.step_s * INTERVAL '1 second' AS ts
           FROM scale_plan p CROSS JOIN bounds b
           CROSS JOIN LATERAL generate_series(
             greatest(1, ceil(extract(epoch FROM b.lo - p.start_ts) / p.step_s)::int + 1),
             least(p.n, CASE WHEN $1::int = $2::int - 1 THEN p.n ELSE ceil(extract(epoch FROM b.hi - p.start_ts) / p.step_s)::int END)
           ) AS i
         )
         INSERT INTO public.ledger_entries (entry_id, workspace_id, ts, account_id, amount, currency, kind, category,
                                           counterparty, note, external_id, inserted_at, updated_at)
         SELECT md5(r.label || ':e:' || r.i)::uuid, r.workspace_id, r.ts,
                CASE WHEN r.h % 10 < 6 THEN 'checking' WHEN r.h % 10 < 9 THEN 'card' ELSE 'savings' END,
                CASE WHEN r.h % 20 = 0 THEN (150000 + r.h % 300000) / 100.0 ELSE -((r.h % 25000) + 100) / 100.0 END,
                CASE WHEN r.h % 50 = 7 THEN 'EUR' ELSE 'USD' END,
                CASE WHEN r.h % 20 = 0 THEN 'income' ELSE 'spend' END,
                CASE WHEN r.h % 20 = 0 THEN 'salary'
                     ELSE (ARRAY['groceries', 'rent', 'utilities', 'transport', 'dining', 'health', 'shopping',
                                 'travel', 'entertainment', 'insurance', 'education', 'gifts'])[1 + (r.h / 7) % 12] END,
                'Shop ' || (r.h / 100) % 400,
                CASE WHEN r.h % 25 = 3 THEN 'receipt kept' END,
                CASE WHEN r.h % 5 <> 0 THEN 'x:' || md5(r.label || ':x:' || r.i) END,
                r.ts + INTERVAL '1 day', r.ts + INTERVAL '1 day'
         FROM rows r ORDER BY r.ts`,
        [k, chunks, sliceStart(k), sliceStart(k + 1)],
      );
    }

    for (const c of constraints)
      await step(
        `constraint ${c.name}`,
        `ALTER TABLE public.ledger_entries ADD CONSTRAINT ${quoteIdent(c.name)} ${c.def}`,
      );
    for (const i of indexes) await step(`index ${i.name}`, i.def);

    // Budgets: five categories a month over the workspace's span (at most ten years), for four workspaces in ten.
    await step(
      'budget lines',
      `INSERT INTO public.budget_lines (line_id, workspace_id, budget_month, direction, category, currency, planned_value, inserted_at, updated_at)
       SELECT md5(p.label || ':b:' || m || ':' || c.cat)::uuid, p.workspace_id,
              (date_trunc('month', TIMESTAMPTZ '${SCALE_END}') - (m + 1) * INTERVAL '1 month')::date, 'spend', c.cat, 'USD',
              c.base + (${hash32("p.label || ':b:' || m || c.cat")} % 10000) / 100.0,
              TIMESTAMPTZ '${SCALE_END}' - (m + 1) * INTERVAL '1 month', TIMESTAMPTZ '${SCALE_END}' - (m + 1) * INTERVAL '1 month'
       FROM scale_plan p
       CROSS JOIN LATERAL generate_series(0, least(119, ceil(p.span_days / 30.44)::int - 1)) AS m
       CROSS JOIN (VALUES ('groceries', 400), ('rent', 1500), ('utilities', 200), ('transport', 150), ('dining', 250)) AS c (cat, base)
       WHERE p.budgeted
       ORDER BY m DESC, p.workspace_id`,
    );

    // History: the last 60 days' writes (kept 90 days), about one change per 40 entries (the target: 500), four
    // row images each, in time order across workspaces. Ids are version-7 UUIDs of their time (version 0111, variant 10), as begin_change makes.
    await step(
      'changes',
      `INSERT INTO expense_internal.changes (change_id, workspace_id, user_id, connection_id, endpoint, sql_text, statements, at)
       SELECT encode(set_bit(set_bit(set_bit(set_bit(set_bit(set_bit(overlay(uuid_send(md5(x.label || ':c:' || x.j)::uuid)
                PLACING substring(int8send(floor(extract(epoch FROM x.at) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
                52, 1), 53, 1), 54, 1), 55, 0), 71, 1), 70, 0), 'hex')::uuid,
              x.workspace_id, x.owner_id, NULL, 'execute',
              'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES '
                || '(TIMESTAMPTZ ''2026-05-01 12:00:00'', ''checking'', -12.50, ''USD'', ''spend'', ''groceries''), '
                || '(TIMESTAMPTZ ''2026-05-02 12:00:00'', ''card'', -40.00, ''USD'', ''spend'', ''dining''), '
                || '(TIMESTAMPTZ ''2026-05-03 12:00:00'', ''checking'', -7.25, ''USD'', ''spend'', ''transport''), '
                || '(TIMESTAMPTZ ''2026-05-04 12:00:00'', ''card'', -99.99, ''USD'', ''spend'', ''shopping'')',
              '[{"table": "ledger_entries", "command": "INSERT", "rowCount": 4}]'::jsonb, x.at
       FROM (
         SELECT p.workspace_id, p.owner_id, p.label, j,
                date_trunc('milliseconds', now() - INTERVAL '60 days' + (j - 0.5) * (INTERVAL '60 days' / p.changes)) AS at
         FROM scale_plan p CROSS JOIN LATERAL generate_series(1, p.changes) AS j
       ) AS x
       ORDER BY x.at`,
    );
    await step(
      'change rows',
      `INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
       SELECT c.change_id, 'ledger_entries', jsonb_build_object('entry_id', e.id), NULL,
              jsonb_build_object('entry_id', e.id, 'workspace_id', c.workspace_id, 'event_id', NULL,
                'ts', to_char(c.at, 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'), 'account_id', 'checking', 'amount', -12.5,
                'currency', 'USD', 'kind', 'spend', 'category', 'groceries', 'counterparty', 'Shop ' || r, 'note', NULL,
                'external_id', NULL, 'inserted_at', to_char(c.at, 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
                'updated_at', to_char(c.at, 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'))
       FROM expense_internal.changes c
       CROSS JOIN generate_series(1, 4) AS r
       CROSS JOIN LATERAL (SELECT md5(c.change_id::text || ':' || r)::uuid AS id) AS e
       ORDER BY c.seq, r`,
    );
    await step(
      'change sizes',
      `UPDATE expense_internal.changes c
       SET bytes = octet_length(c.sql_text) + octet_length(c.statements::text) + s.b
       FROM (SELECT change_id, sum(octet_length(row_key::text) + coalesce(octet_length(after_image::text), 0)) AS b
             FROM expense_internal.change_rows GROUP BY change_id) AS s
       WHERE s.change_id = c.change_id`,
    );
    await step(
      'change usage',
      `INSERT INTO expense_internal.change_usage AS u (workspace_id, bytes, changes)
       SELECT workspace_id, sum(bytes), count(*) FROM expense_internal.changes GROUP BY workspace_id
       ON CONFLICT (workspace_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes, changes = u.changes + EXCLUDED.changes`,
    );
    const orphans = await client.query(
      `SELECT count(*)::int AS n FROM public.ledger_entries e
       WHERE NOT EXISTS (SELECT 1 FROM expense_internal.workspaces w WHERE w.workspace_id = e.workspace_id)`,
    );
    if (orphans.rows[0].n !== 0) throw new Error(`${orphans.rows[0].n} generated entries name no workspace`);
  } finally {
    await client.query('ALTER TABLE public.ledger_entries ENABLE TRIGGER ALL');
    for (const t of USER_TABLES) await client.query(`ALTER TABLE public.${t} ENABLE TRIGGER USER`);
    await client.query('ALTER TABLE expense_internal.changes ENABLE TRIGGER USER');
  }
  for (const t of [
    'public.ledger_entries',
    'public.budget_lines',
    'public.account_metadata',
    'public.workspace_settings',
    'expense_internal.changes',
    'expense_internal.change_rows',
    'expense_internal.change_usage',
    'expense_internal.users',
    'expense_internal.workspaces',
    'expense_internal.workspace_members',
  ]) {
    await step(`vacuum analyze ${t}`, `VACUUM (ANALYZE) ${t}`);
  }
  const { rows } = await client.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM expense_internal.workspaces) AS workspaces,
            (SELECT count(*) FROM public.ledger_entries) AS entries,
            (SELECT count(*) FROM public.budget_lines) AS budget_lines,
            (SELECT count(*) FROM public.account_metadata) AS account_metadata,
            (SELECT count(*) FROM expense_internal.workspace_members) AS members,
            (SELECT count(*) FROM expense_internal.users) AS users,
            (SELECT count(*) FROM expense_internal.changes) AS changes,
            (SELECT count(*) FROM expense_internal.change_rows) AS change_rows,
            (SELECT count(*) FROM public.ledger_entries WHERE workspace_id = $1) AS t_entries,
            (SELECT count(*) FROM public.budget_lines WHERE workspace_id = $1) AS t_budget_lines,
            (SELECT count(*) FROM expense_internal.changes WHERE workspace_id = $1) AS t_changes,
            (SELECT count(*) FROM expense_internal.change_rows r JOIN expense_internal.changes c USING (change_id)
              WHERE c.workspace_id = $1) AS t_change_rows`,
    [plan.target.workspaceId],
  );
  const r = rows[0]!;
  await client.query(
    'RESET statement_timeout; RESET work_mem; RESET maintenance_work_mem; RESET synchronous_commit; RESET temp_file_limit',
  );
  return {
    workspaces: Number(r.workspaces),
    entries: Number(r.entries),
    budgetLines: Number(r.budget_lines),
    accountMetadata: Number(r.account_metadata),
    members: Number(r.members),
    users: Number(r.users),
    changes: Number(r.changes),
    changeRows: Number(r.change_rows),
    target: {
      entries: Number(r.t_entries),
      budgetLines: Number(r.t_budget_lines),
      changes: Number(r.t_changes),
      changeRows: Number(r.t_change_rows),
    },
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
