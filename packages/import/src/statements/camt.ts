import { XMLParser } from 'fast-xml-parser';
import { lineFinder, type Statement, type StatementAccount, type StatementEntry } from './statement.js';

/**
 * ISO 20022 cash management: CAMT.053 (statement, `BkToCstmrStmt/Stmt`), CAMT.052 (intraday report, `Rpt`) and
 * CAMT.054 (debit/credit notification, `Ntfctn`), any version, several accounts in one file. Read with
 * fast-xml-parser set for untrusted input: entities are not expanded (a DOCTYPE is refused before parsing, see
 * sniff/refuse.ts), nesting is bounded, attributes kept for `Ccy`. The opening balance is `OPBD` (or `PRCD`), the
 * closing `CLBD`; an entry is booked when its status is `BOOK`; the counterparty is the creditor of a debit and the
 * debtor of a credit.
 */

export const looksLikeCamt = (head: string): boolean =>
  /urn:iso:std:iso:20022:tech:xsd:camt\.05[234]/.test(head.slice(0, 4000)) ||
  /<(?:\w+:)?BkToCstmr(?:Stmt|AcctRpt|DbtCdtNtfctn)\b/.test(head.slice(0, 4000));

type X = Record<string, unknown>;
const ARRAYS = new Set(['Stmt', 'Rpt', 'Ntfctn', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  maxNestedTags: 64,
  isArray: (name) => ARRAYS.has(name),
});

const obj = (v: unknown): X | undefined => (typeof v === 'object' && v !== null ? (v as X) : undefined);
const list = (v: unknown): X[] => (Array.isArray(v) ? v.map(obj).filter((x): x is X => x !== undefined) : []);
const at = (v: unknown, ...path: string[]): unknown => path.reduce<unknown>((o, k) => obj(o)?.[k], v);
function text(v: unknown): string | undefined {
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim() || undefined;
  const o = obj(v);
  return o && typeof o['#text'] === 'string' ? (o['#text'] as string).trim() || undefined : undefined;
}

function amount(v: unknown, indicator: unknown): string | undefined {
  const raw = text(v);
  if (!raw || !/^\d+(?:\.\d+)?$/.test(raw)) return undefined;
  return text(indicator) === 'DBIT' ? `-${raw}` : raw;
}

function balance(bals: X[], codes: string[]): string | undefined {
  for (const code of codes) {
    const b = bals.find(
      (x) =>
        text(at(x, 'Tp', 'CdOrPrtry', 'Cd')) === code || text(at(x, 'Tp', 'CdOrPrtry', 'Prtry')) === code,
    );
    if (b) return amount(b.Amt, b.CdtDbtInd);
  }
  return undefined;
}

export function readCamt(xml: string): Statement {
  const line = lineFinder(xml);
  const entryTag = /<(?:\w+:)?Ntry>/g;
  const nextEntryLine = () => {
    const m = entryTag.exec(xml);
    return m ? line(m.index) : 0;
  };
  const doc = parser.parse(xml) as X;
  const root = obj(doc.Document) ?? doc;
  const kind = obj(root.BkToCstmrStmt)
    ? { title: 'CAMT.053', items: list(at(root, 'BkToCstmrStmt', 'Stmt')) }
    : obj(root.BkToCstmrAcctRpt)
      ? { title: 'CAMT.052', items: list(at(root, 'BkToCstmrAcctRpt', 'Rpt')) }
      : { title: 'CAMT.054', items: list(at(root, 'BkToCstmrDbtCdtNtfctn', 'Ntfctn')) };
  const accounts: StatementAccount[] = kind.items.map((st) => {
    const acct = at(st, 'Acct');
    const bals = list(at(st, 'Bal'));
    const currency = text(at(acct, 'Ccy'))?.toUpperCase();
    const entries: StatementEntry[] = list(at(st, 'Ntry')).map((n) => {
      const debit = text(n.CdtDbtInd) === 'DBIT';
      const status = text(at(n, 'Sts', 'Cd')) ?? text(n.Sts) ?? 'BOOK';
      const tx = list(at(list(n.NtryDtls)[0], 'TxDtls'))[0];
      const party = at(tx, 'RltdPties', debit ? 'Cdtr' : 'Dbtr');
      const payee = text(at(party, 'Nm')) ?? text(at(party, 'Pty', 'Nm'));
      const ustrd = at(tx, 'RmtInf', 'Ustrd');
      const memo =
        (Array.isArray(ustrd) ? ustrd.map(text).filter(Boolean).join(' ') : text(ustrd)) ||
        text(n.AddtlNtryInf) ||
        undefined;
      const date = (
        text(at(n, 'BookgDt', 'Dt')) ??
        text(at(n, 'BookgDt', 'DtTm')) ??
        text(at(n, 'ValDt', 'Dt')) ??
        ''
      ).slice(0, 10);
      const amt = obj(n.Amt);
      return {
        line: nextEntryLine(),
        date,
        amount: amount(n.Amt, n.CdtDbtInd) ?? '',
        currency: (typeof amt?.['@Ccy'] === 'string' ? (amt['@Ccy'] as string) : currency)?.toUpperCase(),
        payee,
        memo,
        id:
          text(n.AcctSvcrRef) ??
          text(n.NtryRef) ??
          text(at(tx, 'Refs', 'AcctSvcrRef')) ??
          text(at(tx, 'Refs', 'EndToEndId')),
        booked: status === 'BOOK',
        ...(status === 'BOOK' ? {} : { reason: `status ${status}` }),
      };
    });
    return {
      id: text(at(acct, 'Id', 'IBAN')) ?? text(at(acct, 'Id', 'Othr', 'Id')),
      card: false,
      currency,
      opening: balance(bals, ['OPBD', 'PRCD', 'OPAV']),
      closing: balance(bals, ['CLBD']),
      entries,
    };
  });
  return { format: 'camt', title: kind.title, accounts };
}
