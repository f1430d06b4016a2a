import { describe, expect, it } from 'vitest';
import { headerWords, reportRowsForPeople, subtractDecimal, withHeaderWords } from '../table.js';

// Issue 41, item 6: `expense report` for people: headers in words, a remaining column, no empty months around data.
describe("expense report's table for people", () => {
  it('names the columns in words', () => {
    expect(headerWords('planned_value')).toBe('Planned');
    expect(headerWords('last_ts')).toBe('Last entry');
    expect(headerWords('some_new_column')).toBe('Some new column');
    expect(withHeaderWords([{ budget_month: '2026-11-01', actual: '3.00' }])).toEqual([
      { Month: '2026-11-01', Actual: '3.00' },
    ]);
  });

  it('subtracts decimal strings exactly', () => {
    expect(subtractDecimal('400.00', '82.13')).toBe('317.87');
    expect(subtractDecimal('0.1', '0.3')).toBe('-0.2');
    expect(subtractDecimal('100', '250.5')).toBe('-150.5');
    expect(subtractDecimal('1000000000000000.01', '0.02')).toBe('999999999999999.99');
    expect(subtractDecimal('-5', '-5')).toBe('0');
  });

  it('adds what remains of each budget line after its actual', () => {
    const rows = reportRowsForPeople('budget_vs_actual', [
      {
        budget_month: '2026-11-01',
        direction: 'spend',
        category: 'groceries',
        currency: 'USD',
        planned_value: '400.00',
        actual: '82.13',
      },
      {
        budget_month: '2026-11-01',
        direction: 'spend',
        category: 'rent',
        currency: 'USD',
        planned_value: null,
        actual: '10.00',
      },
    ]);
    expect(Object.keys(rows[0]!)).toEqual([
      'budget_month',
      'direction',
      'category',
      'currency',
      'planned_value',
      'actual',
      'remaining',
    ]);
    expect(rows.map((r) => r.remaining)).toEqual(['317.87', null]);
  });

  it('drops the empty months before the first and after the last month with money, not between', () => {
    const month = (m: string, income: string, spent: string) => ({
      month: `2026-${m}-01`,
      currency: 'USD',
      income,
      spent,
      net: subtractDecimal(income, spent),
    });
    const rows = [
      month('01', '0.00', '0.00'),
      month('02', '0.00', '4.50'),
      month('03', '0.00', '0.00'),
      month('04', '10.00', '0.00'),
      month('05', '0.00', '0.00'),
    ];
    expect(reportRowsForPeople('monthly_trend', rows).map((r) => r.month)).toEqual([
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
    ]);
    expect(reportRowsForPeople('monthly_trend', [month('01', '0.00', '0.00')])).toEqual([]);
    expect(reportRowsForPeople('spend_by_category', rows)).toBe(rows);
  });
});
