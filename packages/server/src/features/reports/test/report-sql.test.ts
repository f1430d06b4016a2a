// The reports' SQL (sql.ts): no statement is written for a range the contract refuses, and the days after
// 9999-12-31 are written as PostgreSQL reads them.
import { REPORT_KINDS } from '@expense/wire/reports';
import { describe, expect, it } from 'vitest';
import { monthBuckets, reportScript } from '../sql.js';

describe('the SQL of every report', () => {
  it('is not written for a range out of order, over 36 months or with a day that is not one (checkedReportInput)', () => {
    for (const [from, to] of [
      ['2026-01-01', '9999-12-31'],
      ['2024-01-01', '2027-01-31'],
      ['2026-03-01', '2026-02-28'],
      ['2026-02-01', '2026-02-30'],
      ['0000-12-01', '0001-01-31'],
    ] as const)
      for (const kind of REPORT_KINDS) expect(() => reportScript({ kind, from, to }), kind).toThrow();
  });

  it('writes the days after 9999-12-31 as PostgreSQL reads them', () => {
    expect(monthBuckets('9999-11-15', '9999-12-31')).toEqual([
      ['9999-11-01', '9999-12-01'],
      ['9999-12-01', '10000-01-01'],
    ]);
    expect(monthBuckets('2024-01-01', '2026-12-31')).toHaveLength(36);
    for (const kind of REPORT_KINDS) {
      const sql = reportScript({ kind, from: '9999-12-01', to: '9999-12-31' }).join('\n');
      expect(sql, kind).not.toMatch(/NaN|\+0/);
      if (kind !== 'budget_vs_actual') expect(sql, kind).toContain("TIMESTAMPTZ '10000-01-01 00:00:00'");
    }
  });
});
