import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEcbFile } from '../parse.js';
import { parseEcbCsv } from '../parse-csv.js';
import { parseEcbXml } from '../parse-xml.js';
import { FX_SEED_CSV } from '../seed.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const csv = fixture('eurofxref-hist-excerpt.csv');
const xml90 = fixture('eurofxref-hist-90d-excerpt.xml');
const daily = fixture('eurofxref-daily-excerpt.xml');

describe('parseEcbCsv', () => {
  it('reads the history excerpt: N/A cells give no rate, rows come out oldest first', () => {
    const result = parseEcbCsv(csv);
    if (!result.ok) throw new Error(result.error.reason);
    const { rates, currencies, days, layout } = result.value;
    expect(layout).toBe('csv');
    expect(days).toBe(12);
    expect(currencies).toEqual(['CHF', 'GBP', 'JPY', 'SEK', 'USD']);
    expect(rates).toHaveLength(60);
    expect(rates[0]).toEqual({ date: '2024-12-16', currency: 'CHF', rate: '0.9382' });
    expect(rates.find((r) => r.date === '2024-12-31' && r.currency === 'USD')?.rate).toBe('1.0389');
    expect(rates.some((r) => r.currency === 'RUB')).toBe(false);
  });

  it('ships the same excerpt as seed data', () => {
    expect(FX_SEED_CSV).toBe(csv);
  });

  it('accepts CRLF, a BOM, no trailing comma and the one-day CSV date style', () => {
    const result = parseEcbCsv('\uFEFFDate, USD, JPY\r\n03 January 2025, 1.0299, 162.88\r\n');
    expect(result.ok && result.value.rates).toEqual([
      { date: '2025-01-03', currency: 'JPY', rate: '162.88' },
      { date: '2025-01-03', currency: 'USD', rate: '1.0299' },
    ]);
  });

  it.each([
    ['', 1, 'empty'],
    ['Day,USD,\n2025-01-03,1.0299,\n', 1, 'must start with "Date"'],
    ['Date,USD,US,\n', 1, '"US" is not a three-letter currency code'],
    ['Date,USD,USD,\n', 1, 'USD appears twice'],
    ['Date,USD,\n', 1, 'no rows'],
    ['Date,USD,JPY,\n2025-01-03,1.0299,162.88,\n2025-01-02,1.0321,\n', 3, 'expected 3 fields'],
    ['Date,USD,\n2025-01-03,1.0299,\n2025-02-30,1.0321,\n', 3, '"2025-02-30" is not a date'],
    ['Date,USD,\n2025-01-03,1.0299,\n2025-01-03,1.0321,\n', 3, 'the date 2025-01-03 appears twice'],
    ['Date,USD,\n2025-01-03,-1.0299,\n', 2, 'the USD rate "-1.0299" is not a positive decimal'],
    ['Date,USD,\n2025-01-03,1e3,\n', 2, 'is not a positive decimal'],
    ['Date,USD,\n2025-01-03,0.0000,\n', 2, 'is zero'],
    ['Date,USD,JPY,\n2025-01-03,,162.88,\n', 2, 'the USD rate "" is empty'],
    ['Date,USD,\n2025-01-03,N/A,\n', 1, 'every cell is N/A'],
    ['Date,USD,\n2025-01-03,"1.0299,\n', 2, 'not a CSV file'],
    ['Date,USD,\n\n  \n2025-01-03,1.0299,\n,,\n', 5, '"" is not a date'],
  ])('refuses %j at line %i', (text, line, reason) => {
    const result = parseEcbCsv(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('fx_malformed_file');
    expect(result.error.line).toBe(line);
    expect(result.error.reason).toContain(reason);
  });
});

describe('parseEcbXml', () => {
  it('reads the 90-day layout with the same rates as the CSV (published scale kept)', () => {
    const fromXml = parseEcbXml(xml90);
    const fromCsv = parseEcbCsv(csv);
    if (!fromXml.ok || !fromCsv.ok) throw new Error('parse failed');
    expect(fromXml.value.days).toBe(12);
    expect(fromXml.value.rates.map((r) => [r.date, r.currency, Number(r.rate)])).toEqual(
      fromCsv.value.rates.map((r) => [r.date, r.currency, Number(r.rate)]),
    );
    expect(fromXml.value.rates.find((r) => r.date === '2025-01-03' && r.currency === 'GBP')?.rate).toBe(
      '0.82920',
    );
  });

  it('reads the daily layout (single quotes) and picks the layout by content', () => {
    const result = parseEcbFile(daily);
    expect(result.ok && result.value.layout).toBe('xml');
    expect(result.ok && result.value.rates.map((r) => r.currency)).toEqual([
      'CHF',
      'GBP',
      'JPY',
      'SEK',
      'USD',
    ]);
    expect(parseEcbFile(csv).ok && parseEcbFile(csv)).toMatchObject({ value: { layout: 'csv' } });
  });

  const wrap = (cubes: string) =>
    `<?xml version="1.0"?>\n<gesmes:Envelope xmlns:gesmes="g" xmlns="e">\n<Cube>\n${cubes}\n</Cube>\n</gesmes:Envelope>\n`;

  it.each([
    [
      wrap(`<Cube time="2025-01-03">\n<Cube currency="USD" rate="1.0299"/>\n</Cub>`),
      6,
      "instead of closing tag 'Cub'",
    ],
    [wrap(`<Cube time="2025-01-03">\n<Cube currency="USD" rate="abc"/>\n</Cube>`), 5, 'the USD rate "abc"'],
    [wrap(`<Cube time="2025-13-03">\n</Cube>`), 4, 'time="2025-13-03" is not a date'],
    [
      wrap(
        `<Cube time="2025-01-03">\n<Cube currency="USD" rate="1"/>\n<Cube currency="USD" rate="2"/>\n</Cube>`,
      ),
      6,
      'USD appears twice',
    ],
    [wrap(`<Cube time="2025-01-03">\n<Cube currency="USD"/>\n</Cube>`), 5, 'expected <Cube currency='],
    [
      wrap(`<Cube time="2025-01-03">\n<Cube currency="USD" rate="1.2>\n</Cube>`),
      5,
      "Attributes for 'Cube' have open quote",
    ],
    ['<!DOCTYPE x [<!ENTITY a "b">]>\n<gesmes:Envelope/>', 1, 'DOCTYPE'],
    ['<html><body/></html>', 1, 'the root element is <html>'],
    [wrap(`<Cube time="2025-01-03">`), 6, "Expected closing tag 'Cube' (opened in line 3"],
    ['<gesmes:Envelope/>\n<Cube/>', 2, 'a second root element <Cube>'],
    [
      wrap(`<Cube time="2025-01-03">\n<Cube currency="USD" rate="1"><x/></Cube>\n</Cube>`),
      5,
      'unexpected <x>',
    ],
    [wrap(''), 1, 'no <Cube currency= rate=> element'],
  ])('refuses malformed XML %#', (text, line, reason) => {
    const result = parseEcbXml(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.reason).toContain(reason);
    expect(result.error.line).toBe(line);
  });
});
