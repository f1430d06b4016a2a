import { malformed, type ParseResult, type PublishedRate } from './types.js';
import { isCurrencyCode, isIsoDate, rateProblem, toParsedRates } from './values.js';
import { localName, XmlSyntaxError, xmlEvents } from './xml-tokens.js';

/**
 * Parses the ECB's gesmes XML (eurofxref-daily.xml, eurofxref-hist-90d.xml, eurofxref-hist.xml):
 * `<gesmes:Envelope>` ... `<Cube><Cube time="2025-01-03"><Cube currency="USD" rate="1.0299"/>...`.
 * Elements other than Cube (subject, sender) are ignored; every Cube must have the expected shape.
 */
export function parseEcbXml(text: string): ParseResult {
  const rates: PublishedRate[] = [];
  const days = new Set<string>();
  // The Cube nesting: 0 outside, 1 in the outer Cube, 2 in a day's Cube, 3 in a rate's Cube.
  let cubeDepth = 0;
  let day: { date: string; currencies: Set<string> } | null = null;
  let first = true;
  try {
    for (const event of xmlEvents(text)) {
      if (event.type === 'close') {
        if (localName(event.name) === 'Cube' && cubeDepth > 0) {
          if (cubeDepth === 2) day = null;
          cubeDepth--;
        }
        continue;
      }
      const { element } = event;
      if (first) {
        first = false;
        if (element.local !== 'Envelope') {
          return malformed(element.line, `the root element is <${element.name}>, expected <gesmes:Envelope>`);
        }
        continue;
      }
      if (element.local !== 'Cube') {
        if (cubeDepth > 0) return malformed(element.line, `unexpected <${element.name}> inside <Cube>`);
        continue;
      }
      cubeDepth++;
      const attrs = [...element.attrs.keys()]
        .filter((a) => !a.startsWith('xmlns'))
        .sort()
        .join(',');
      if (cubeDepth === 1) {
        if (attrs !== '') return malformed(element.line, 'the outer <Cube> takes no attributes');
      } else if (cubeDepth === 2) {
        if (attrs !== 'time') return malformed(element.line, 'expected <Cube time="YYYY-MM-DD">');
        const date = element.attrs.get('time')!;
        if (!isIsoDate(date)) return malformed(element.line, `time="${date}" is not a date (YYYY-MM-DD)`);
        if (days.has(date)) return malformed(element.line, `the date ${date} appears twice`);
        days.add(date);
        day = { date, currencies: new Set() };
      } else if (cubeDepth === 3 && day) {
        if (attrs !== 'currency,rate') {
          return malformed(element.line, 'expected <Cube currency="XXX" rate="1.2345"/>');
        }
        const currency = element.attrs.get('currency')!;
        const rate = element.attrs.get('rate')!;
        if (!isCurrencyCode(currency)) {
          return malformed(element.line, `currency="${currency}" is not a three-letter currency code`);
        }
        if (currency === 'EUR') return malformed(element.line, 'EUR is the base of every rate, not a quote');
        if (day.currencies.has(currency)) {
          return malformed(element.line, `${currency} appears twice on ${day.date}`);
        }
        const problem = rateProblem(rate);
        if (problem) return malformed(element.line, `the ${currency} rate "${rate}" ${problem}`);
        day.currencies.add(currency);
        rates.push({ date: day.date, currency, rate });
      } else {
        return malformed(element.line, '<Cube> nested deeper than Cube/Cube time/Cube currency');
      }
    }
  } catch (error) {
    if (error instanceof XmlSyntaxError) return malformed(error.line, error.reason);
    throw error;
  }
  if (rates.length === 0) return malformed(1, 'the file holds no <Cube currency= rate=> element');
  return { ok: true, value: toParsedRates('xml', rates, days.size) };
}
