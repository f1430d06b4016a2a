import { detectDateFormat, isoDate } from '../csv/dialect.js';
import type { Statement, StatementAccount, StatementEntry } from './statement.js';

/**
 * QIF (Quicken Interchange Format): `!Type:Bank` / `!Type:CCard` / `!Type:Cash` sections of records, one field a
 * line (`D` date, `T`/`U` amount, `P` payee, `M` memo, `N` number, `C` cleared, `L` category), each record ended
 * by `^`. Dates are written `03/15/2026`, `3/15'26` or, by banks outside the US, `15/03/2026`: the order is the
 * one that fits every date of the file. A record whose payee is `Opening Balance` carries the opening balance.
 */

export const looksLikeQif = (head: string): boolean =>
  /^\s*!(?:Type|Account|Option)\b/im.test(head.slice(0, 2000));

interface RawRecord {
  line: number;
  fields: Map<string, string>;
}

export function readQif(text: string): Statement {
  const lines = text.split(/\r\n|\r|\n/);
  const accounts: StatementAccount[] = [];
  let account: StatementAccount | undefined;
  let accountName: string | undefined;
  let inAccountBlock = false;
  let current: RawRecord | undefined;
  const raw: { account: StatementAccount; record: RawRecord }[] = [];
  lines.forEach((text, i) => {
    const l = text.trimEnd();
    if (l === '') return;
    if (l.startsWith('!')) {
      const word = l.slice(1).toLowerCase();
      if (word.startsWith('account')) {
        inAccountBlock = true;
        return;
      }
      if (word.startsWith('type:')) {
        const type = word.slice(5).trim();
        account = {
          id: accountName,
          card: type === 'ccard',
          currency: undefined,
          opening: undefined,
          closing: undefined,
          entries: [],
        };
        accounts.push(account);
        inAccountBlock = false;
      }
      return;
    }
    if (l === '^') {
      if (current && account && !inAccountBlock) raw.push({ account, record: current });
      current = undefined;
      return;
    }
    const code = l[0]!;
    const value = l.slice(1).trim();
    if (inAccountBlock) {
      if (code === 'N') accountName = value;
      return;
    }
    current ??= { line: i + 1, fields: new Map() };
    if (!current.fields.has(code)) current.fields.set(code, value);
  });
  if (current && account) raw.push({ account, record: current });
  const dates = raw.map((r) => (r.record.fields.get('D') ?? '').replace(/'\s*/, '/').replace(/\s/g, ''));
  const detected = detectDateFormat(dates);
  const format =
    detected.kind === 'found' ? detected.format : detected.kind === 'ambiguous' ? 'MM/DD/YYYY' : undefined;
  raw.forEach(({ account, record }, i) => {
    const f = record.fields;
    const d = dates[i]!;
    const date = format ? isoDate(d, format) : /^\d{4}-\d{2}-\d{2}$/.test(d) ? d : undefined;
    const amountText = (f.get('T') ?? f.get('U') ?? '').replace(/,/g, '');
    const payee = f.get('P');
    const entry: StatementEntry = {
      line: record.line,
      date: date ?? '',
      amount: /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(amountText) ? amountText.replace(/^\+/, '') : '',
      currency: undefined,
      payee,
      memo: f.get('M'),
      id: f.get('N') && f.get('N') !== '' ? undefined : undefined,
      booked: true,
    };
    if (
      /^opening balance$/i.test(payee ?? '') &&
      account.entries.length === 0 &&
      account.opening === undefined
    ) {
      account.opening = entry.amount;
      return;
    }
    account.entries.push(entry);
  });
  return {
    format: 'qif',
    title: `QIF${detected.kind === 'ambiguous' ? ' (dates read month-first, as Quicken writes them)' : ''}`,
    accounts: accounts.filter((a) => a.entries.length > 0 || a.opening !== undefined),
  };
}
