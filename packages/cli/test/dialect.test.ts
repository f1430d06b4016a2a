import { describe, expect, it } from 'vitest';
import { detectDelimiter, isoDate, normaliseAmount } from '../src/import/dialect.js';

describe('bank export dialects', () => {
  it('detects comma, semicolon and tab from the header line, ignoring quoted text', () => {
    expect(detectDelimiter('Date,Amount,Note')).toBe(',');
    expect(detectDelimiter('"Buchungsdatum";"Betrag (EUR)";"Text, lang"')).toBe(';');
    expect(detectDelimiter('Date\tAmount\tNote')).toBe('\t');
  });
  it('reads dates in the given order', () => {
    expect(isoDate('03/04/2026', 'MM/DD/YYYY')).toBe('2026-03-04');
    expect(isoDate('03/04/2026', 'DD/MM/YYYY')).toBe('2026-04-03');
    expect(isoDate('4.3.26', 'DD.MM.YYYY')).toBe('2026-03-04');
    expect(isoDate('2026-03-04', 'DD.MM.YYYY')).toBeUndefined();
  });
  it('reads amounts as banks write them, exactly', () => {
    expect(normaliseAmount('($4.50)', false)).toBe('-4.50');
    expect(normaliseAmount('$1,234.56', false)).toBe('1234.56');
    expect(normaliseAmount('-1.234,56', true)).toBe('-1234.56');
    expect(normaliseAmount('1 234,56 €', true)).toBe('1234.56');
    expect(normaliseAmount('-12,00 €', true)).toBe('-12.00');
    expect(normaliseAmount('12 USD', false)).toBeUndefined();
    expect(normaliseAmount('1,5', false)).toBeUndefined();
    expect(normaliseAmount('1.234.5', false)).toBeUndefined();
  });
});
