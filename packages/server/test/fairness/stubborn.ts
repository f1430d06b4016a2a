// A statement that ignores cancels: a trigger on ledger_entries that, for rows of category 'stubborn', keeps
// sleeping for `seconds` and swallows every query_canceled (the protocol cancel and statement_timeout alike), as
// the planner does while it folds a huge expression. Only ending its server process stops it. Installed as the
// owner in the test's own database; what sends it is an ordinary INSERT the guard accepts.
import type { Database } from '../../src/storage/index.js';

export const STUBBORN_CATEGORY = 'stubborn';

export async function installStubborn(db: Database, seconds: number): Promise<void> {
  // Counts the rounds of the trigger's loop, where it swallows cancels (a sequence is not rolled back with the
  // statement it ran in). A cancel that lands before the loop (the deadline passed as the INSERT arrived) stops the
  // statement as any. The exception handler stays empty: a statement there would be a point where a second cancel
  // (statement_timeout and the protocol cancel come together) ends the statement.
  await db.query('CREATE SEQUENCE public.test_stubborn_rounds');
  await db.query(`CREATE FUNCTION public.test_stubborn() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
    DECLARE
      until timestamptz := clock_timestamp() + interval '${seconds} seconds';
    BEGIN
      WHILE clock_timestamp() < until LOOP
        BEGIN
          PERFORM nextval('public.test_stubborn_rounds');
          PERFORM pg_sleep(0.05);
        EXCEPTION WHEN query_canceled THEN
          NULL;
        END;
      END LOOP;
      RETURN NEW;
    END $$`);
  await db.query(`CREATE TRIGGER test_stubborn BEFORE INSERT ON public.ledger_entries FOR EACH ROW
    WHEN (NEW.category = '${STUBBORN_CATEGORY}') EXECUTE FUNCTION public.test_stubborn()`);
}

/** An INSERT the guard accepts that runs the stubborn trigger once. */
export const STUBBORN_INSERT = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'checking', 1, 'EUR', 'spend', '${STUBBORN_CATEGORY}')`;

/** Server processes running the stubborn trigger now (pg_stat_activity, over the owner's connection). */
export async function stubbornBackends(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
     AND query LIKE '%${STUBBORN_CATEGORY}%' AND pid <> pg_backend_pid()`,
  );
  return rows.map((r) => r.pid);
}

/** How many rounds the stubborn trigger's loop has begun (over the owner's connection). */
export async function stubbornRounds(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::text AS n FROM public.test_stubborn_rounds',
  );
  return Number(rows[0]?.n ?? 0);
}
