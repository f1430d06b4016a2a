import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { malformed, type ParseResult, type PublishedRate } from './types.js';
import { isCurrencyCode, isIsoDate, rateProblem, toParsedRates } from './values.js';

/** One node of fast-xml-parser's ordered output: `{ [tagName]: children, ':@': attributes }`. */
type XmlNode = { [name: string]: XmlNode[] } & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  ignoreDeclaration: true,
  captureMetaData: true,
});
// The position fast-xml-parser records on each node (captureMetaData), under a symbol its types spell `Symbol`.
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
const startOf = (node: XmlNode): number =>
  (node as unknown as Record<symbol, { startIndex: number }>)[META]!.startIndex;

class Refusal {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {}
}

const nameOf = (node: XmlNode): string => Object.keys(node).find((key) => key !== ':@')!;
const localName = (name: string): string => name.slice(name.lastIndexOf(':') + 1);
const isElement = (node: XmlNode): boolean => !nameOf(node).startsWith('#');
const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/**
 * Parses the ECB's gesmes XML (eurofxref-daily.xml, eurofxref-hist-90d.xml, eurofxref-hist.xml):
 * `<gesmes:Envelope>` ... `<Cube><Cube time="2025-01-03"><Cube currency="USD" rate="1.0299"/>...`.
 * Elements other than Cube (subject, sender) are ignored; every Cube must have the expected shape.
 * DOCTYPE is refused before parsing, so no entity can expand.
 */
export function parseEcbXml(text: string): ParseResult {
  const declaration = /<!(?!--|\[CDATA\[)/.exec(text);
  if (declaration) {
    return malformed(lineAt(text, declaration.index), 'DOCTYPE and other declarations are not allowed');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) return malformed(valid.err.line, `not well-formed XML: ${valid.err.msg}`);

  const [root, second] = (parser.parse(text) as XmlNode[]).filter(isElement);
  const line = (node: XmlNode): number => lineAt(text, startOf(node));
  if (!root) return malformed(1, 'no root element');
  if (second) return malformed(line(second), `a second root element <${nameOf(second)}>`);
  if (localName(nameOf(root)) !== 'Envelope') {
    return malformed(line(root), `the root element is <${nameOf(root)}>, expected <gesmes:Envelope>`);
  }

  const rates: PublishedRate[] = [];
  const days = new Set<string>();
  // cubeDepth: 0 outside, 1 the outer Cube, 2 a day's Cube, 3 a rate's Cube.
  const visit = (nodes: XmlNode[], cubeDepth: number, day?: { date: string; currencies: Set<string> }) => {
    for (const node of nodes.filter(isElement)) {
      const name = nameOf(node);
      const children = node[name]!;
      if (localName(name) !== 'Cube') {
        if (cubeDepth > 0) throw new Refusal(line(node), `unexpected <${name}> inside <Cube>`);
        visit(children, 0);
        continue;
      }
      const attrs = node[':@'] ?? {};
      const keys = Object.keys(attrs)
        .filter((a) => !a.startsWith('xmlns'))
        .sort()
        .join(',');
      if (cubeDepth === 0) {
        if (keys !== '') throw new Refusal(line(node), 'the outer <Cube> takes no attributes');
        visit(children, 1);
      } else if (cubeDepth === 1) {
        const date = attrs.time;
        if (keys !== 'time' || date === undefined) {
          throw new Refusal(line(node), 'expected <Cube time="YYYY-MM-DD">');
        }
        if (!isIsoDate(date)) throw new Refusal(line(node), `time="${date}" is not a date (YYYY-MM-DD)`);
        if (days.has(date)) throw new Refusal(line(node), `the date ${date} appears twice`);
        days.add(date);
        visit(children, 2, { date, currencies: new Set() });
      } else if (cubeDepth === 2 && day) {
        const { currency, rate } = attrs;
        if (keys !== 'currency,rate' || currency === undefined || rate === undefined) {
          throw new Refusal(line(node), 'expected <Cube currency="XXX" rate="1.2345"/>');
        }
        if (!isCurrencyCode(currency)) {
          throw new Refusal(line(node), `currency="${currency}" is not a three-letter currency code`);
        }
        if (currency === 'EUR') throw new Refusal(line(node), 'EUR is the base of every rate, not a quote');
        if (day.currencies.has(currency))
          throw new Refusal(line(node), `${currency} appears twice on ${day.date}`);
        const problem = rateProblem(rate);
        if (problem) throw new Refusal(line(node), `the ${currency} rate "${rate}" ${problem}`);
        day.currencies.add(currency);
        rates.push({ date: day.date, currency, rate });
        visit(children, 3, day);
      } else {
        throw new Refusal(line(node), '<Cube> nested deeper than Cube/Cube time/Cube currency');
      }
    }
  };
  try {
    visit(root[nameOf(root)]!, 0);
  } catch (error) {
    if (error instanceof Refusal) return malformed(error.line, error.reason);
    throw error;
  }
  if (rates.length === 0) return malformed(1, 'the file holds no <Cube currency= rate=> element');
  return { ok: true, value: toParsedRates('xml', rates, days.size) };
}
