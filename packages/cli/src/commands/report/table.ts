import type { ReportKind } from '@expense/wire/reports';

type Row = Record<string, unknown>;

/** The reports' column names in words, for the table a person reads (CSV and JSON keep the names). */
const HEADERS: Record<string, string> = {
  category: 'Category',
  currency: 'Currency',
  spent: 'Spent',
  entries: 'Entries',
  budget_month: 'Month',
  direction: 'Direction',
  planned_value: 'Planned',
  actual: 'Actual',
  remaining: 'Remaining',
  account_id: 'Account',
  balance: 'Balance',
  change: 'Change',
  last_ts: 'Last entry',
  month: 'Month',
  income: 'Income',
  net: 'Net',
  native_currency: 'Own currency',
  native_balance: 'Balance in own currency',
  native_change: 'Change in own currency',
};

export const headerWords = (name: string): string =>
  HEADERS[name] ?? `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')}`;

/** a - b of two decimal strings, exactly, with the larger number of decimals of the two. */
export function subtractDecimal(a: string, b: string): string {
  const scale = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const units = (s: string) => {
    const negative = s.startsWith('-');
    const [whole = '0', fraction = ''] = s.replace(/^[-+]/, '').split('.');
    const n = BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
    return negative ? -n : n;
  };
  const d = units(a) - units(b);
  const digits = (d < 0n ? -d : d).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return d < 0n ? `-${text}` : text;
}

const isZero = (v: unknown) => v === null || v === undefined || Number(v) === 0;

/**
 * The rows a person reads: budget_vs_actual with what remains of each plan (planned - actual), monthly_trend without
 * the empty months before its first and after its last month with money.
 */
export function reportRowsForPeople(kind: ReportKind, rows: Row[]): Row[] {
  if (kind === 'budget_vs_actual') {
    return rows.map((r) => {
      const { planned_value: planned, actual } = r;
      const known = typeof planned === 'string' && (typeof actual === 'string' || actual === null);
      const out: Row = {};
      for (const [k, v] of Object.entries(r)) {
        out[k] = v;
        if (k === 'actual') out.remaining = known ? subtractDecimal(planned, actual ?? '0') : null;
      }
      return out;
    });
  }
  if (kind === 'monthly_trend') {
    const empty = (r: Row) => isZero(r.income) && isZero(r.spent) && isZero(r.net);
    const first = rows.findIndex((r) => !empty(r));
    if (first === -1) return [];
    const last = rows.length - 1 - [...rows].reverse().findIndex((r) => !empty(r));
    return rows.slice(first, last + 1);
  }
  return rows;
}

/** The rows re-keyed by the headers in words. */
export function withHeaderWords(rows: Row[]): Row[] {
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [headerWords(k), v])));
}
