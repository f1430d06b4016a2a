import { describe, expect, it } from 'vitest';
import { isIanaTimeZone, isIsoCurrency, minorUnits, roundDecimal } from '../src/currency.js';
import { reportData } from '../src/reports.js';

describe('currencies and rounding', () => {
  it('rounds decimal strings exactly, half away from zero, to the minor units of ISO 4217', () => {
    expect(roundDecimal('12.6128750364113020682142', minorUnits('EUR'))).toBe('12.61');
    expect(roundDecimal('0.005', 2)).toBe('0.01');
    expect(roundDecimal('-0.005', 2)).toBe('-0.01');
    expect(roundDecimal('-0.004', 2)).toBe('0.00');
    expect(roundDecimal('320246.8', minorUnits('JPY'))).toBe('320247');
    expect(roundDecimal('1.0005', minorUnits('KWD'))).toBe('1.001');
    expect(roundDecimal('99.995', 2)).toBe('100.00');
    expect(roundDecimal('7', 2)).toBe('7.00');
    expect(roundDecimal('NaN', 2)).toBe('NaN');
  });

  it('knows ISO 4217 codes and IANA zones', () => {
    expect(['EUR', 'USD', 'JPY'].every(isIsoCurrency)).toBe(true);
    expect(['eur', 'XYZ', 'EURO', ''].some(isIsoCurrency)).toBe(false);
    expect(['Europe/Berlin', 'America/New_York', 'UTC'].every(isIanaTimeZone)).toBe(true);
    expect(['Mars/Olympus', '+01:00', "UTC'; --", ''].some(isIanaTimeZone)).toBe(false);
  });
});

describe('reportData', () => {
  const input = { kind: 'spend_by_category', from: '2026-03-01', to: '2026-03-31' } as const;
  const statements = (rateDate: string, convertedDay: string) => [
    { rows: [{ currency: 'EUR' }] },
    { rows: [{ category: 'food', currency: 'EUR', spent: '12.6128', entries: '2' }] },
    {
      rows: [
        {
          currency: 'USD',
          items: '2',
          unconverted: '0',
          newest_rate_date: rateDate,
          newest_converted_day: convertedDay,
        },
      ],
    },
  ];

  it('calls rates stale when the newest is over 7 days older than the newest day it converted', () => {
    const fresh = reportData(input, statements('2026-03-27', '2026-03-31'), '2026-06-01');
    expect(fresh.fx).toEqual({
      newestRateDate: '2026-03-27',
      stale: false,
      unconverted: { count: 0, currencies: [] },
    });
    expect(fresh.rows).toEqual([{ category: 'food', currency: 'EUR', spent: '12.61', entries: 2 }]);
    const old = reportData(input, statements('2026-03-20', '2026-03-31'), '2026-06-01');
    expect(old.fx.stale).toBe(true);
    expect(old.notes[0]).toMatch(/stale.*2026-03-20.*2026-03-31/);
    // `expense report` and the console print the notes to people: no agent's instructions in them.
    expect(old.notes[0]).toMatch(/converted amounts may be off/);
    expect(old.notes.join(' ')).not.toMatch(/tell the user|ask the user|the agent/i);
    // A past month whose only foreign entry is early in it: its rate was a day old where it was used.
    expect(reportData(input, statements('2026-03-04', '2026-03-05'), '2026-06-01').fx.stale).toBe(false);
    // A converted day after today (a future-dated entry) is judged at today.
    expect(reportData(input, statements('2026-03-10', '2026-03-30'), '2026-03-15').fx.stale).toBe(false);
    expect(reportData(input, statements('2026-03-01', '2026-03-30'), '2026-03-15').fx.stale).toBe(true);
  });
});
