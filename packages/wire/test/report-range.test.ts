import { describe, expect, it } from 'vitest';
import { checkReportRange, isReportDay, ReportInputError } from '../src/report-range.js';
import { monthBuckets, REPORT_KINDS, reportScript } from '../src/reports.js';

describe('the range of every report', () => {
  it('takes real days from 0001-01-01 to 9999-12-31', () => {
    for (const day of ['0001-01-01', '2024-02-29', '2000-02-29', '9999-12-31', '0050-06-15'])
      expect(isReportDay(day), day).toBe(true);
    for (const day of [
      '0000-01-01',
      '2026-02-29',
      '2026-02-30',
      '1900-02-29',
      '2026-13-01',
      '2026-04-31',
      '2026-1-31',
      '10000-01-01',
      '',
    ])
      expect(isReportDay(day), day).toBe(false);
  });

  it('refuses a range out of order, over 36 months or with a day that is not one, for every kind', () => {
    const refusals: [string, string, RegExp][] = [
      ['2026-01-01', '9999-12-31', /at most 36 months; 2026-01-01 to 9999-12-31 touches 95688/],
      ['2024-01-01', '2027-01-31', /touches 37/],
      ['2024-01-31', '2027-01-01', /touches 37/],
      ['2026-03-01', '2026-02-28', /`from` \(2026-03-01\) is after `to`/],
      ['2026-02-01', '2026-02-30', /`to` \(2026-02-30\) is not a day/],
      ['0000-12-01', '0001-01-31', /`from` \(0000-12-01\) is not a day/],
    ];
    for (const [from, to, message] of refusals) {
      expect(() => checkReportRange(from, to)).toThrow(ReportInputError);
      expect(() => checkReportRange(from, to)).toThrow(message);
      for (const kind of REPORT_KINDS) expect(() => reportScript({ kind, from, to })).toThrow();
    }
    for (const [from, to] of [
      ['2024-01-01', '2026-12-31'],
      ['2026-12-31', '2026-12-31'],
    ] as const)
      expect(() => checkReportRange(from, to)).not.toThrow();
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
