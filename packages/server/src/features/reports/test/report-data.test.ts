// The one shaping of a report's rows (data.ts): amounts rounded to the currency's minor units, counts as numbers,
// and when the rates used are called stale.
import { describe, expect, it } from 'vitest';
import { reportData } from '../data.js';

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
