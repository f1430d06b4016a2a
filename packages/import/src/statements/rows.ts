import { CARD_PAYMENT } from '../csv/words.js';
import { ImportError, usageError } from '../errors.js';
import type { LedgerRow } from '../rows/fields.js';
import { deriveExternalId } from '../rows/validate.js';
import { parseTimestamp } from '../rows/values.js';
import { cardPaymentLegs } from '../transfers/legs.js';
import { keepStatementType } from '../transfers/type-words.js';
import { type Reconciliation, reconcile } from './reconcile.js';
import type { Statement } from './statement.js';

export interface StatementRows {
  rows: LedgerRow[];
  left: { line: number; reason: string }[];
  reconciliation: Reconciliation[];
}

const TEXT_LIMIT = 1000;
const clip = (s: string | undefined) => {
  const t = s?.replaceAll('\u0000', '').replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, TEXT_LIMIT) : null;
};

/**
 * A statement's booked entries as ledger rows, each account's under the account_id `accountFor` gives it; the
 * duplicate key is the statement's own identifier (FITID, entry reference), else the entry's content, with its
 * occurrence. A statement whose balances do not add up is refused with the difference (`import_unbalanced`).
 */
export function statementRows(
  statement: Statement,
  accountFor: (index: number) => string,
  options: { fileName: string; currency: string | undefined },
): StatementRows {
  const rows: LedgerRow[] = [];
  const left: { line: number; reason: string }[] = [];
  const reconciliation: Reconciliation[] = [];
  const problems: { line: number; message: string }[] = [];
  statement.accounts.forEach((account, index) => {
    const r = reconcile(account);
    if (r) {
      if (!r.balanced)
        throw new ImportError(
          'import_unbalanced',
          `${options.fileName}${account.id ? ` (account ${account.id})` : ''} does not add up: opening ${r.opening} + booked entries ${r.sum} ≠ closing ${r.closing} (a difference of ${r.difference}).`,
          1,
          {
            hint: 'Nothing was sent. The file is incomplete or altered: download the statement again from the bank.',
            details: { reconciliation: r },
          },
        );
      reconciliation.push(r);
    }
    const accountId = accountFor(index);
    const seen = new Map<string, number>();
    for (const e of account.entries) {
      if (!e.booked) {
        left.push({ line: e.line, reason: e.reason ?? 'not booked' });
        continue;
      }
      const ts = parseTimestamp(e.date);
      if (!ts.ok) {
        problems.push({ line: e.line, message: `has no readable date ("${e.date}")` });
        continue;
      }
      if (!/^-?\d/.test(e.amount)) {
        problems.push({ line: e.line, message: 'has no readable amount' });
        continue;
      }
      const currency = (e.currency ?? account.currency ?? options.currency)?.toUpperCase();
      if (!currency || !/^[A-Z]{3}$/.test(currency)) {
        problems.push({ line: e.line, message: 'has no currency (give --currency)' });
        continue;
      }
      const amount = /^-0*\.?0*$/.test(e.amount) ? e.amount.slice(1) : e.amount;
      const identity = JSON.stringify([
        'expense-import/statement',
        statement.format,
        account.id ?? accountId,
        e.id ?? null,
        ...(e.id ? [] : [e.date, e.amount, e.payee ?? null, e.memo ?? null]),
      ]);
      const occurrence = (seen.get(identity) ?? 0) + 1;
      seen.set(identity, occurrence);
      const row: LedgerRow = {
        line: e.line,
        ts: ts.value,
        account_id: accountId,
        amount,
        currency,
        kind: amount.startsWith('-') ? 'spend' : 'income',
        category: null,
        counterparty: clip(e.payee),
        note: clip(e.memo),
        event_id: null,
        external_id: deriveExternalId(identity, occurrence),
      };
      // Money in whose type says payment keeps the word (a workspace's credit-card account reads it too); on a
      // card's statement it is a transfer from the account that paid, never income (transfers/legs.ts), as when
      // its words say so.
      const typed = row.kind === 'income' ? keepStatementType(row, e.type) : row;
      if (account.card && (typed !== row || CARD_PAYMENT.test(`${e.payee ?? ''} ${e.memo ?? ''}`)))
        rows.push(...cardPaymentLegs(typed));
      else rows.push(typed);
    }
  });
  if (problems.length)
    throw new ImportError(
      'invalid_csv',
      `${options.fileName} has ${problems.length} entries that cannot be read; nothing was sent.`,
      1,
      {
        hint: 'Download the statement again from the bank; if it still fails, export it as CSV.',
        details: { problems },
      },
    );
  return { rows, left, reconciliation };
}

/** `--account` for a file of several accounts is wrong usage: each account is named by the file. */
export function oneAccountOnly(count: number, fileName: string): ImportError {
  return usageError(
    `${fileName} holds ${count} accounts; --account names one.`,
    'Leave --account out: each account of the file is imported under its own (matched to the workspace’s accounts, or asked).',
    { variant: 'import_one_account', facts: { file: fileName, count } },
  );
}
