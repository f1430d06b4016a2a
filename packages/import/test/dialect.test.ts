import {
  detectDateFormat,
  detectDecimalComma,
  detectDelimiter,
  isoDate,
  normaliseAmount,
} from '@expense/import';
import { describe, expect, it } from 'vitest';

describe('bank export dialects', () => {
  it('tells thousands from decimals by groups of three, and by the currency where one group could be either', () => {
    // Chilean pesos, Icelandic krónur: whole amounts grouped by dots.
    expect(detectDecimalComma(['24.550', '475.450', '1.325.450'])).toBe(true);
    expect(detectDecimalComma(['-8.450', '191.550', '650.000'])).toBe(true);
    expect(detectDecimalComma(['-8.450', '191.550'], { minorDigits: 0 })).toBe(true);
    // A Kuwaiti dinar has three decimals: 12.500 is twelve and a half.
    expect(detectDecimalComma(['12.500', '3.250'], { minorDigits: 3 })).toBeUndefined();
    // One amount of one group says nothing; two groups or more always do.
    expect(detectDecimalComma(['1.234', '12'])).toBeUndefined();
    expect(detectDecimalComma(['1.234.567'], { minorDigits: 3 })).toBe(true);
    expect(detectDecimalComma(['1,234,567', '12'])).toBe(false);
  });

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
    expect(normaliseAmount('12 USD', false, true)).toBe('12');
    expect(normaliseAmount('-45,67 PLN', true, true)).toBe('-45.67');
    expect(normaliseAmount('12,50-', true)).toBe('-12.50');
    expect(normaliseAmount('4.00 CR', false)).toBe('4.00');
    expect(normaliseAmount('12.50DR', false)).toBe('-12.50');
    expect(normaliseAmount('1,5', false)).toBeUndefined();
    expect(normaliseAmount('1.234.5', false)).toBeUndefined();
  });
  it('detects the date order from every value, and says when it cannot', () => {
    expect(detectDateFormat(['03/04/2026', '03/14/2026'])).toEqual({ kind: 'found', format: 'MM/DD/YYYY' });
    expect(detectDateFormat(['03/04/2026', '13/04/2026'])).toEqual({ kind: 'found', format: 'DD/MM/YYYY' });
    expect(detectDateFormat(['03/04/2026', '04/05/2026'])).toEqual({
      kind: 'ambiguous',
      formats: ['MM/DD/YYYY', 'DD/MM/YYYY'],
      example: '03/04/2026',
    });
    expect(detectDateFormat(['04.03.26'])).toEqual({ kind: 'found', format: 'DD.MM.YYYY' });
    expect(detectDateFormat(['2026-03-04'])).toEqual({ kind: 'none' });
    expect(detectDateFormat(['13/14/2026'])).toEqual({ kind: 'none' });
  });
});
