import type { SqlSession } from '@expense/sql-guard';
import { shortIdSelect } from '../changes/store.js';

/**
 * The short id of the change a committed write opened, as GET /changes shows it (the id's last 8 hex digits, 12
 * on a clash within the workspace), read in the write's own transaction as the owner (the history is not the SQL
 * role's to read). Undefined when the write recorded no change row.
 */
export async function changeShortId(session: SqlSession, changeId: string): Promise<string | undefined> {
  const select = shortIdSelect(changeId);
  const results = session.queryBatch
    ? await session.queryBatch(`RESET ROLE; ${select}`)
    : [await session.query('RESET ROLE'), await session.query(select)];
  const value = results.at(-1)?.rows[0]?.short_id;
  return typeof value === 'string' ? value : undefined;
}
