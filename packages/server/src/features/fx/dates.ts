/** Calendar arithmetic on YYYY-MM-DD strings, in UTC. */
const DAY_MS = 86_400_000;

export const addDays = (iso: string, days: number): string =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

export const utcToday = (now: Date = new Date()): string => now.toISOString().slice(0, 10);
