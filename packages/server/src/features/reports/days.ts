// Days as the reports' SQL writes them: YYYY-MM-DD strings, UTC arithmetic, years up to 10000 (the day after
// 9999-12-31, an exclusive bound).

/** YYYY-MM-DD as PostgreSQL reads it: toISOString writes year 10000 (the day after 9999-12-31) as +010000. */
function isoDay(t: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(t.getUTCFullYear()).padStart(4, '0')}-${two(t.getUTCMonth() + 1)}-${two(t.getUTCDate())}`;
}

/** The UTC midnight of a YYYY-MM-DD day (also a year past 9999, which `new Date(text)` refuses). */
function parseDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t;
}

export function addDays(date: string, days: number): string {
  const t = parseDay(date);
  t.setUTCDate(t.getUTCDate() + days);
  return isoDay(t);
}

export function monthStart(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

export function nextMonth(first: string): string {
  const t = parseDay(first);
  t.setUTCMonth(t.getUTCMonth() + 1);
  return isoDay(t);
}
