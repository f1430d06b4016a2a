import type { Database, Queryable } from '../../platform/storage/database.js';

/** The NOLOGIN role that owns writes to fx_rates_raw and fx_rates_daily (migrations 0001, 0004). */
export const FX_ROLE = 'expense_fx';
/** Serialises FX writers across server processes sharing one database. */
const FX_LOCK_KEY = 4_737_001;

/** One owner transaction that switches to the FX role, after taking the FX writers' lock. */
export function fxTransaction<T>(db: Database, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [FX_LOCK_KEY]);
    await tx.query(`SET LOCAL ROLE ${FX_ROLE}`);
    return fn(tx);
  });
}
