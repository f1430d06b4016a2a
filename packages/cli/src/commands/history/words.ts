import type { Change, ChangePreviewRow } from '@expense/wire';

/** "2026-03-14 09:05": an instant in the workspace's zone, to the minute. */
export function localMinute(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** A row's date as people read it: an entry's day in the workspace's zone, a budget line's month. */
function rowDate(date: string | null, timeZone: string): string | null {
  if (date === null) return null;
  if (/^\d{4}-\d{2}-01$/.test(date)) return date.slice(0, 7);
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  const t = Date.parse(date);
  return Number.isNaN(t) ? date : localMinute(date, timeZone).slice(0, 10);
}

/** "added 2026-03-14 Corner Café -4.50 EUR": one row of a change by its date, words and amount. */
export function rowWords(row: ChangePreviewRow, timeZone: string): string {
  const amount = row.amount === null ? null : `${row.amount}${row.currency ? ` ${row.currency}` : ''}`;
  const what = [rowDate(row.date, timeZone), row.label, amount].filter((s) => s !== null).join(' ');
  return `${row.action} ${what || row.table}`;
}

/** "INSERT 3 ledger_entries, UPDATE 1 workspace_settings" */
export function changeSummary(statements: { table: string; command: string; rowCount: number }[]): string {
  return statements.map((s) => `${s.command} ${s.rowCount} ${s.table}`).join(', ') || 'no rows';
}

export function changeRows(c: Change): string {
  if (!c.group) {
    const n = c.statements.reduce((sum, s) => sum + s.rowCount, 0);
    return `${n} row${n === 1 ? '' : 's'}`;
  }
  const { rowCount, changes } = c.group;
  return `${rowCount} row${rowCount === 1 ? '' : 's'} in ${changes} change${changes === 1 ? '' : 's'}`;
}

/** What a history entry did, in people's words: a group by its label, a change by its first rows. */
export function changeWhat(c: Change, timeZone = 'UTC'): string {
  if (c.group) {
    const reverted =
      c.group.reverted === 0
        ? ''
        : c.group.reverted === c.group.changes
          ? ' (reverted)'
          : ` (${c.group.reverted} of ${c.group.changes} changes reverted)`;
    return `${c.group.label || c.endpoint}${reverted}: ${changeRows(c)}`;
  }
  const preview = c.preview ?? [];
  const total = c.statements.reduce((sum, s) => sum + s.rowCount, 0);
  const rows =
    preview.length === 0
      ? changeSummary(c.statements)
      : `${preview.map((r) => rowWords(r, timeZone)).join('; ')}${total > preview.length ? `; and ${total - preview.length} more` : ''}`;
  const undo = c.endpoint === 'revert' ? 'undo: ' : c.endpoint === 'restore' ? 'restore: ' : '';
  return `${c.revertedBy ? '(reverted) ' : ''}${undo}${rows}`;
}
