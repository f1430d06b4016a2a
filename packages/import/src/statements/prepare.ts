import { usageError } from '../errors.js';
import { type ImportNote, noteWords, said } from '../notes.js';
import type { ImportHooks, ImportRequest, PreparedImport } from '../request.js';
import { LEDGER_TARGET } from '../send/batches.js';
import type { FileFormat } from '../sniff/format.js';
import { readStatement } from './read.js';
import { oneAccountOnly, statementRows } from './rows.js';

/** The CSV options that mean nothing to a statement (its layout is its format's). */
const CSV_ONLY = [
  'map',
  'preset',
  'delimiter',
  'skipLines',
  'dateFormat',
  'decimalComma',
  'debit',
  'credit',
  'columns',
] as const;

/** A statement file (OFX/QFX, QIF, CAMT.05x, MT940/942) to ledger rows: its accounts resolved, its balances reconciled. */
export async function prepareStatement(
  format: Exclude<FileFormat, 'csv'>,
  text: string,
  request: ImportRequest,
  hooks: ImportHooks,
  notes: ImportNote[],
): Promise<PreparedImport> {
  const path = request.fileName;
  const given = CSV_ONLY.filter((o) => {
    const v = request[o];
    return v !== undefined && !(Array.isArray(v) && v.length === 0);
  });
  if (given.length)
    throw usageError(
      `${path} is a ${format.toUpperCase()} statement: ${given.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} apply to CSV files only.`,
      'Leave them out: the statement says its columns, dates, amounts and signs itself.',
    );
  const statement = readStatement(format, text);
  if (statement.accounts.length === 0)
    throw usageError(
      `${path} looks like ${statement.title} but holds no statement.`,
      'Download the statement again from the bank.',
    );
  if (request.account !== undefined && statement.accounts.length > 1)
    throw oneAccountOnly(statement.accounts.length, path);
  const accounts: string[] = [];
  for (const account of statement.accounts) {
    let id = request.account;
    if (id === undefined)
      id = hooks.account
        ? ((await hooks.account(account.id, { card: account.card })) ?? account.id)
        : account.id;
    if (id === undefined)
      throw usageError(
        'No column for account_id.',
        `${path} does not name its account: give --account <name> (an account of the workspace, or a new name).`,
        { variant: 'import_account' },
      );
    accounts.push(id);
  }
  const currency =
    request.currency?.trim().toUpperCase() ??
    (statement.accounts.some((a) => !a.currency) && statement.format === 'qif'
      ? (await hooks.workspaceCurrency()).toUpperCase()
      : undefined);
  const { rows, left, reconciliation } = statementRows(statement, (i) => accounts[i]!, {
    fileName: path,
    currency,
  });
  const entries = statement.accounts.reduce((n, a) => n + a.entries.length, 0);
  notes.push(
    said(
      `Recognised: ${statement.title}, ${statement.accounts.length === 1 ? 'one account' : `${statement.accounts.length} accounts`} (${accounts.join(', ')}), ${entries} entr${entries === 1 ? 'y' : 'ies'}.`,
    ),
  );
  for (const r of reconciliation)
    notes.push(
      said(
        `Reconciled${r.account ? ` ${r.account}` : ''}: opening ${r.opening} + ${r.sum} = closing ${r.closing}.`,
      ),
    );
  const fingerprint = JSON.stringify({
    into: 'ledger_entries',
    format,
    accounts,
    currency: currency ?? null,
  });
  return {
    notes: notes.map((n) => noteWords(n, 'cli')),
    noted: notes,
    bank: { name: format, title: statement.title, recognised: true },
    left,
    fingerprint,
    format,
    reconciliation,
    into: 'ledger_entries',
    rows,
    target: LEDGER_TARGET,
  };
}
