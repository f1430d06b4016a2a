import { describe, expect, it } from 'vitest';
import { checkReportRange, isReportDay, ReportInputError } from '../src/report-range.js';

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

  it('refuses a range out of order, over 36 months or with a day that is not one', () => {
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
    }
    for (const [from, to] of [
      ['2024-01-01', '2026-12-31'],
      ['2026-12-31', '2026-12-31'],
    ] as const)
      expect(() => checkReportRange(from, to)).not.toThrow();
  });
});
