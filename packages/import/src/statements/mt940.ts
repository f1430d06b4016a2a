import type { Statement, StatementAccount, StatementEntry } from './statement.js';

/**
 * SWIFT MT940 (statement) and MT942 (interim report): `:20:` starts a statement, `:25:` names the account,
 * `:60F:`/`:60M:` the opening balance, `:61:` an entry (value date, entry date, `C`/`D`/`RC`/`RD`, amount with
 * a decimal comma, type and references), `:86:` its details (German `?20`…`?33` subfields, Dutch `/NAME/`…
 * `/REMI/`, or free text), `:62F:`/`:62M:` the closing balance. Several statements may follow one another.
 */

export const looksLikeMt940 = (head: string): boolean =>
  /(^|\n)\s*:20:/.test(head.slice(0, 4000)) && /(^|\n):(?:25|61|60[FM]):/.test(head.slice(0, 20000));

const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d+(?:,\d*)?)/;
const ENTRY = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?(\d+(?:,\d*)?)([NFS][A-Z0-9]{3})?([^/]*)(?:\/\/(.*))?/;

function decimalOf(comma: string): string {
  const [whole, fraction = ''] = comma.split(',');
  return fraction === '' ? whole! : `${whole}.${fraction}`;
}

const signed = (mark: string, amount: string) => (mark === 'D' || mark === 'RC' ? `-${amount}` : amount);

function details(info: string): { payee?: string; memo?: string } {
  if (/\?\d\d/.test(info)) {
    const fields = new Map<string, string>();
    for (const m of info.replace(/\n/g, '').matchAll(/\?(\d\d)([^?]*)/g))
      fields.set(m[1]!, (fields.get(m[1]!) ?? '') + m[2]!);
    const purpose = [...fields]
      .filter(([k]) => (k >= '20' && k <= '29') || (k >= '60' && k <= '63'))
      .map(([, v]) => v)
      .join('')
      .trim();
    const payee = `${fields.get('32') ?? ''}${fields.get('33') ?? ''}`.trim();
    return { ...(payee ? { payee } : {}), ...(purpose ? { memo: purpose } : {}) };
  }
  if (/\/(?:NAME|REMI)\//.test(info)) {
    const flat = info.replace(/\n/g, '');
    const name = /\/NAME\/([^/]*)/.exec(flat)?.[1]?.trim();
    const remi = /\/REMI\/(?:USTD\/\/)?([^/]*)/.exec(flat)?.[1]?.trim();
    return { ...(name ? { payee: name } : {}), ...(remi ? { memo: remi } : {}) };
  }
  const text = info.replace(/\n/g, ' ').trim();
  return text ? { memo: text } : {};
}

export function readMt940(text: string): Statement {
  const lines = text.split(/\r\n|\r|\n/);
  const accounts: StatementAccount[] = [];
  let account: StatementAccount | undefined;
  let field: { tag: string; value: string; line: number } | undefined;
  let lastEntry: StatementEntry | undefined;
  let mt942 = false;
  const flush = () => {
    if (!field) return;
    const { tag, value, line } = field;
    field = undefined;
    if (tag === '20') {
      account = {
        id: undefined,
        card: false,
        currency: undefined,
        opening: undefined,
        closing: undefined,
        entries: [],
      };
      accounts.push(account);
      lastEntry = undefined;
      return;
    }
    if (!account) return;
    if (tag === '25') account.id = value.trim();
    else if (tag === '34F') mt942 = true;
    else if (tag.startsWith('60')) {
      const b = BALANCE.exec(value.trim());
      if (b) {
        account.currency = b[3];
        account.opening = signed(b[1]!, decimalOf(b[4]!));
      }
    } else if (tag.startsWith('62')) {
      const b = BALANCE.exec(value.trim());
      if (b) account.closing = signed(b[1]!, decimalOf(b[4]!));
    } else if (tag === '61') {
      const [first = '', ...more] = value.split('\n');
      const e = ENTRY.exec(first.trim());
      const yymmdd = e?.[1];
      const date = yymmdd ? `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}` : '';
      const reference = e?.[8]?.trim() || e?.[7]?.trim();
      lastEntry = {
        line,
        date,
        amount: e ? signed(e[3]!, decimalOf(e[5]!)) : '',
        currency: account.currency,
        payee: undefined,
        memo: more.join(' ').trim() || undefined,
        id: reference && reference !== 'NONREF' ? reference : undefined,
        booked: true,
      };
      account.entries.push(lastEntry);
    } else if (tag === '86' && lastEntry) {
      const d = details(value);
      lastEntry.payee = d.payee ?? lastEntry.payee;
      lastEntry.memo = d.memo ?? lastEntry.memo;
    }
  };
  lines.forEach((raw, i) => {
    const l = raw.replace(/\s+$/, '');
    const tag = /^:(\d\d[A-Z]?):(.*)$/.exec(l);
    if (tag) {
      flush();
      field = { tag: tag[1]!, value: tag[2]!, line: i + 1 };
    } else if (l === '-' || l.startsWith('-}') || l.startsWith('{')) {
      flush();
    } else if (field) field.value += `\n${l}`;
  });
  flush();
  return {
    format: 'mt940',
    title: mt942 ? 'MT942' : 'MT940',
    accounts: accounts.filter((a) => a.entries.length > 0 || a.opening !== undefined),
  };
}
