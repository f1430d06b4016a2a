// A statement that ignores cancels: a trigger on ledger_entries that, for rows of category 'stubborn', keeps
// sleeping for `seconds` and swallows every query_canceled (the protocol cancel and statement_timeout alike), as
// the planner does while it folds a huge expression. Only ending its server process stops it. Installed as the
// owner in the test's own database; what sends it is an ordinary INSERT the guard accepts.
import type { Database } from '../../storage/index.js';

export const STUBBORN_CATEGORY = 'stubborn';

export async function installStubborn(db: Database, seconds: number): Promise<void> {
  // Counts the rounds of the trigger's loop, where it swallows cancels (a sequence is not rolled back with the
  // statement it ran in). A cancel that lands before the loop (the deadline passed as the INSERT arrived) stops the
  // statement as any. PL/pgSQL checks for interrupts before every statement and in an empty exception handler, so a
  // second cancel (statement_timeout and the protocol cancel come together) landing while the first is handled is
  // raised outside the block that caught the first: each level of nesting swallows one more cancel there.
  await db.query('CREATE SEQUENCE public.test_stubborn_rounds');
  const round = `WHILE clock_timestamp() < until LOOP
        BEGIN
          PERFORM nextval('public.test_stubborn_rounds');
          PERFORM pg_sleep(0.05);
        EXCEPTION WHEN query_canceled THEN
        END;
      END LOOP;`;
  const swallowing = (body: string, levels: number): string =>
    levels === 0
      ? body
      : `LOOP
        BEGIN
          ${swallowing(body, levels - 1)}
          EXIT;
        EXCEPTION WHEN query_canceled THEN
        END;
      END LOOP;`;
  await db.query(`CREATE FUNCTION public.test_stubborn() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
    DECLARE
      until timestamptz := clock_timestamp() + interval '${seconds} seconds';
    BEGIN
      ${swallowing(round, CANCELS_SWALLOWED_OUTSIDE_A_ROUND)}
      RETURN NEW;
    END $$`);
  await db.query(`CREATE TRIGGER test_stubborn BEFORE INSERT ON public.ledger_entries FOR EACH ROW
    WHEN (NEW.category = '${STUBBORN_CATEGORY}') EXECUTE FUNCTION public.test_stubborn()`);
}

/** The cancels at a deadline are two; one spare level. */
const CANCELS_SWALLOWED_OUTSIDE_A_ROUND = 3;

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

// A statement whose server process ignores even pg_terminate_backend for a while, as the planner does while it folds
// a huge expression: a trigger that, for rows of category 'deaf', waits for a program that ignores the signals
// PostgreSQL sends its process group (COPY ... TO PROGRAM: the server process waits for the program's exit without
// checking for interrupts). It ends when the program does, `seconds` after the trigger fired. The program runs on
// the database's host, as the superuser the test databases belong to.
export const DEAF_CATEGORY = 'deaf';

export async function installDeaf(db: Database, seconds: number): Promise<void> {
  await db.query(`CREATE FUNCTION public.test_deaf() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $f$
    BEGIN
      EXECUTE $q$COPY (SELECT 1) TO PROGRAM 'trap "" INT TERM QUIT; sleep ${seconds}'$q$;
      RETURN NEW;
    END $f$`);
  await db.query(`CREATE TRIGGER test_deaf BEFORE INSERT ON public.ledger_entries FOR EACH ROW
    WHEN (NEW.category = '${DEAF_CATEGORY}') EXECUTE FUNCTION public.test_deaf()`);
}

/** An INSERT the guard accepts that runs the deaf trigger once. */
export const DEAF_INSERT = STUBBORN_INSERT.replace(`'${STUBBORN_CATEGORY}'`, `'${DEAF_CATEGORY}'`);

/** Which of these server processes still exist (pg_stat_activity, over the owner's connection). */
export async function livingBackends(db: Database, pids: readonly number[]): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [
    pids,
  ]);
  return rows.map((r) => r.pid);
}

/** Server processes running the deaf trigger's INSERT now (over the owner's connection). */
export async function deafBackends(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
     AND query LIKE '%''${DEAF_CATEGORY}''%' AND pid <> pg_backend_pid()`,
  );
  return rows.map((r) => r.pid);
}
