import {
  isoFromDigits,
  lineFinder,
  type Statement,
  type StatementAccount,
  type StatementEntry,
} from './statement.js';

/**
 * OFX 1.x (SGML: leaf elements without end tags, a `OFXHEADER:100` header) and 2.x (XML), and Quicken's QFX (OFX
 * with an `INTU.BID`): one tag scanner reads both, since each value we need is a leaf (`<TRNAMT>-12.50`). Bank
 * (`STMTRS`) and card (`CCSTMTRS`) statements, several in one file; `LEDGERBAL` is the closing balance.
 */

const TAG = /<(\/?)([A-Za-z0-9.]+)(?:\s[^>]*)?>([^<]*)/g;

interface Node {
  name: string;
  offset: number;
  values: Map<string, string>;
  children: Node[];
}

const AGGREGATES = new Set([
  'STMTRS',
  'CCSTMTRS',
  'STMTTRN',
  'BANKACCTFROM',
  'CCACCTFROM',
  'LEDGERBAL',
  'PAYEE',
  'BANKTRANLIST',
  'CURRENCY',
  'ORIGCURRENCY',
]);

export const looksLikeOfx = (head: string): boolean =>
  /^\s*(?:OFXHEADER\s*:|<\?xml[^>]*>\s*<\?OFX|<OFX>)/i.test(head) || /<OFX>/i.test(head.slice(0, 4000));

/** The aggregates we read, each with its leaf values, nested as in the file. */
function scan(text: string): Node {
  const root: Node = { name: '', offset: 0, values: new Map(), children: [] };
  const stack: Node[] = [root];
  for (const m of text.matchAll(TAG)) {
    const name = m[2]!.toUpperCase();
    const closing = m[1] === '/';
    if (AGGREGATES.has(name)) {
      if (closing) {
        const at = stack.findLastIndex((n) => n.name === name);
        if (at > 0) stack.length = at;
      } else {
        const node: Node = { name, offset: m.index, values: new Map(), children: [] };
        stack.at(-1)!.children.push(node);
        stack.push(node);
      }
      continue;
    }
    if (closing) continue;
    const value = m[3]!.trim();
    if (value !== '' && !stack.at(-1)!.values.has(name))
      stack.at(-1)!.values.set(name, decodeEntities(value));
  }
  return root;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function all(node: Node, name: string): Node[] {
  const out: Node[] = [];
  const walk = (n: Node) => {
    for (const c of n.children) {
      if (c.name === name) out.push(c);
      else walk(c);
    }
  };
  walk(node);
  return out;
}

/** An OFX amount (`-1234.56`, some banks write `-1234,56`) as a plain decimal. */
function amountOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const s = raw.replace(/\s/g, '').replace(/^\+/, '');
  const comma = /^-?\d+,\d+$/.test(s) ? s.replace(',', '.') : s;
  return /^-?(?:\d+(?:\.\d*)?|\.\d+)$/.test(comma) ? comma : undefined;
}

export function readOfx(text: string): Statement {
  const root = scan(text);
  const line = lineFinder(text);
  const statements = [...all(root, 'STMTRS'), ...all(root, 'CCSTMTRS')].sort((a, b) => a.offset - b.offset);
  const accounts: StatementAccount[] = statements.map((st) => {
    const card = st.name === 'CCSTMTRS';
    const from = all(st, card ? 'CCACCTFROM' : 'BANKACCTFROM')[0];
    const currency = st.values.get('CURDEF')?.toUpperCase();
    const entries: StatementEntry[] = all(st, 'STMTTRN').map((t) => {
      const payee = t.values.get('NAME') ?? all(t, 'PAYEE')[0]?.values.get('NAME');
      const amount = amountOf(t.values.get('TRNAMT'));
      const date = isoFromDigits(t.values.get('DTPOSTED') ?? t.values.get('DTUSER') ?? '');
      const entry: StatementEntry = {
        line: line(t.offset),
        date: date ?? '',
        amount: amount ?? '',
        currency: (all(t, 'CURRENCY')[0]?.values.get('CURSYM') ?? currency)?.toUpperCase(),
        payee,
        memo: t.values.get('MEMO'),
        id: t.values.get('FITID'),
        booked: true,
      };
      const type = t.values.get('TRNTYPE')?.toUpperCase();
      if (type) entry.type = type;
      return entry;
    });
    const ledger = all(st, 'LEDGERBAL')[0];
    return {
      id: from?.values.get('ACCTID'),
      card,
      currency,
      opening: undefined,
      closing: amountOf(ledger?.values.get('BALAMT')),
      entries,
    };
  });
  const xml = /^\s*(?:\uFEFF)?<\?xml/i.test(text);
  const qfx = /INTU\.BID/i.test(text);
  return { format: 'ofx', title: qfx ? 'QFX (Quicken)' : xml ? 'OFX 2 (XML)' : 'OFX 1 (SGML)', accounts };
}
