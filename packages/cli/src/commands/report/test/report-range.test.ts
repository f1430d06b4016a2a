// `expense report`'s date range: months from the flags, else the workspace's current month, taken from its local
// today (data.clock.today) and never from the machine's UTC date.
import { describe, expect, it } from 'vitest';
import type { CliError } from '../../../errors.js';
import { reportRange } from '../run.js';

describe('reportRange', () => {
  it("takes the default month from the workspace's today", () => {
    // 2026-11-30T23:30Z is already 1 December in Berlin: the workspace's today decides.
    expect(reportRange('spending', {}, '2026-12-01')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
    expect(reportRange('spending', {}, '2026-11-30')).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    expect(reportRange('trend', {}, '2026-12-01')).toEqual({ from: '2026-01-01', to: '2026-12-31' });
  });

  it('takes months from the flags, and refuses malformed or crossed ones', () => {
    expect(reportRange('budget', { month: '2024-02' }, '2026-12-01')).toEqual({
      from: '2024-02-01',
      to: '2024-02-29',
    });
    expect(reportRange('trend', { from: '2026-11', to: '2027-01' }, '2026-12-01')).toEqual({
      from: '2026-11-01',
      to: '2027-01-31',
    });
    expect(() => reportRange('spending', { month: '2026-13' }, '2026-12-01')).toThrow(/YYYY-MM/);
    expect(() => reportRange('spending', { from: '2026-12', to: '2026-11' }, '2026-12-01')).toThrow(/after/);
    expect(() => reportRange('spending', { month: '2026-12', from: '2026-11' }, '2026-12-01')).toThrow(
      /not both/,
    );
  });

  it('refuses what the API would refuse (the wire rule): over 36 months, year 0, each with the next step', () => {
    expect(reportRange('trend', { from: '2024-01', to: '2026-12' }, '')).toEqual({
      from: '2024-01-01',
      to: '2026-12-31',
    });
    expect(reportRange('balances', { month: '9999-12' }, '')).toEqual({
      from: '9999-12-01',
      to: '9999-12-31',
    });
    expect(reportRange('trend', { month: '0001-12' }, '')).toEqual({ from: '0001-01-01', to: '0001-12-31' });
    for (const flags of [
      { from: '2024-01', to: '2027-01' },
      { from: '2026-01', to: '9999-12' },
      { month: '0000-01' },
    ]) {
      const refusal = (() => {
        try {
          reportRange('spending', flags, '');
        } catch (error) {
          return error as CliError;
        }
      })();
      expect(refusal?.code, JSON.stringify(flags)).toBe('usage_error');
      expect(refusal?.hint).toMatch(/at most 36 months apart/);
    }
  });
});
