// The console's own reads and writes of workspace data: plain SQL through the same API as any client, so a
// write is a normal change (in Activity, with its change id, revertible) under the same guard and limits.
import { api, newIdempotencyKey } from './api.js';
import { ROUTES } from './routes.js';

/** A SQL string literal. */
/** @param {unknown} value */
export function lit(value) {
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** A SQL numeric literal from a person's input ("12,50" or "12.50"), or null if it is not a number. */
/** @param {unknown} value */
export function num(value) {
  const text = String(value ?? '')
    .trim()
    .replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(text) ? text : null;
}

/**
 * The rows of one SELECT.
 * @param {string} sql
 * @param {string | null} workspaceId
 * @returns {Promise<import('./types/console').Row[]>}
 */
export async function rows(sql, workspaceId) {
  const result = await api(ROUTES.sqlQuery, { body: { sql }, workspaceId });
  return result.statements[0]?.rows ?? [];
}

/**
 * One committed write; resolves with { changeId, rowCount }.
 * @param {string} sql
 * @param {string | null} workspaceId
 * @returns {Promise<{ changeId: string, rowCount: number }>}
 */
export async function write(sql, workspaceId) {
  const result = await api(ROUTES.sqlExecute, {
    body: { sql },
    workspaceId,
    idempotencyKey: newIdempotencyKey(),
  });
  return { changeId: result.changeId, rowCount: result.statements[0]?.rowCount ?? 0 };
}
