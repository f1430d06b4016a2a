import type { Clock } from '@expense/wire';

/** Formatters per time zone: building one is costly (tens of microseconds), formatting with it is not. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const MAX_FORMATTERS = 500;

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(timeZone);
  if (formatter !== undefined) return formatter;
  try {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
  } catch {
    formatter = null; // a name PostgreSQL knows and this Node does not (e.g. posix/...)
  }
  if (formatters.size >= MAX_FORMATTERS) formatters.clear();
  formatters.set(timeZone, formatter);
  return formatter;
}

/** The last date asked per zone, for the minute it was asked in: a date changes only at a whole minute. */
const lastDates = new Map<string, { minute: number; date: string }>();

/** The date of `at` in `timeZone` as YYYY-MM-DD, or undefined for a zone Node does not know. */
export function dateIn(at: Date, timeZone: string): string | undefined {
  const minute = Math.floor(at.getTime() / 60_000);
  const last = lastDates.get(timeZone);
  if (last?.minute === minute) return last.date;
  const formatter = formatterFor(timeZone);
  if (!formatter) return undefined;
  const parts = formatter.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  const date = `${part('year')}-${part('month')}-${part('day')}`;
  if (lastDates.size >= MAX_FORMATTERS) lastDates.clear();
  lastDates.set(timeZone, { minute, date });
  return date;
}

/**
 * The server's time and today's date in a workspace's time zone (http-api.md, "SQL result"). A zone Node's
 * time zone data does not know falls back to UTC, and says so in timeZone.
 */
export function clockAt(at: Date, timeZone: string): Clock {
  const today = dateIn(at, timeZone);
  if (today === undefined) return clockAt(at, 'UTC');
  return { now: at.toISOString(), today, timeZone };
}

/** Adds days to a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
