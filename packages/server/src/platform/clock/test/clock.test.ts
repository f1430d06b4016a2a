import { describe, expect, it } from 'vitest';
import { clockAt, dateIn } from '../clock.js';

describe('dateIn', () => {
  it('turns the date at the zone midnight, to the minute, in zones a quarter-hour off the hour', () => {
    // Kathmandu is UTC+05:45, Eucla UTC+08:45, Chatham UTC+13:45 in November (daylight time).
    const cases: [string, string, string][] = [
      ['Asia/Kathmandu', '2026-11-27T18:14:59.999Z', '2026-11-27'],
      ['Asia/Kathmandu', '2026-11-27T18:15:00.000Z', '2026-11-28'],
      ['Australia/Eucla', '2026-11-27T15:14:00.000Z', '2026-11-27'],
      ['Australia/Eucla', '2026-11-27T15:15:30.000Z', '2026-11-28'],
      ['Pacific/Chatham', '2026-11-27T10:14:59.000Z', '2026-11-27'],
      ['Pacific/Chatham', '2026-11-27T10:15:00.000Z', '2026-11-28'],
    ];
    for (const [zone, at, date] of cases) {
      expect(dateIn(new Date(at), zone)).toBe(date);
      // Asked again in the same minute (the remembered date), and once more after another zone's answer.
      expect(dateIn(new Date(at), zone)).toBe(date);
      expect(dateIn(new Date(at), 'UTC')).toBe(at.slice(0, 10));
      expect(dateIn(new Date(at), zone)).toBe(date);
    }
  });

  it('follows the clock back as well as forward (a clock set back by NTP)', () => {
    expect(dateIn(new Date('2026-11-28T00:00:00Z'), 'UTC')).toBe('2026-11-28');
    expect(dateIn(new Date('2026-11-27T23:59:00Z'), 'UTC')).toBe('2026-11-27');
  });

  it('is undefined for a zone Node does not know, and the clock falls back to UTC saying so', () => {
    expect(dateIn(new Date('2026-11-28T12:00:00Z'), 'Not/AZone')).toBeUndefined();
    expect(clockAt(new Date('2026-11-28T12:00:00Z'), 'Not/AZone')).toEqual({
      now: '2026-11-28T12:00:00.000Z',
      today: '2026-11-28',
      timeZone: 'UTC',
    });
  });
});
