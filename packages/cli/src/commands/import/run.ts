import { pairedFingerprint, pairWithWorkspace, type TransferStep } from '@expense/import';
import type { Context } from '../../context.js';
import { prepareImport } from '../../import/prepare.js';
import { readBytes } from '../../import/read-file.js';
import { chooseAccount, chooseCharges } from './ask.js';
import { chooseDateFormat } from './dates.js';
import type { ImportOptions } from './options.js';
import { send } from './send.js';

/** `expense import`: the file prepared and validated locally, then sent in batches after one approval. */
export async function importFile(ctx: Context, options: ImportOptions, [file]: string[]): Promise<void> {
  const path = file!;
  const { bytes, digest } = await readBytes(path);
  const prepared = await prepareImport(
    {
      fileName: path,
      bytes,
      into: options.into,
      account: options.account,
      map: options.map,
      preset: options.preset,
      delimiter: options.delimiter,
      skipLines: options.skipLines,
      encoding: options.encoding,
      dateFormat: options.dateFormat,
      decimalComma: options.decimalComma,
      currency: options.currency,
      debit: options.debit,
      credit: options.credit,
      invertSign: options.invertSign,
      columns: options.columns,
      charges: options.chargesPositive ? 'positive' : options.chargesNegative ? 'negative' : undefined,
    },
    {
      chooseDateFormat: (formats, example) => chooseDateFormat(ctx, formats, example),
      workspaceCurrency: () => workspaceCurrency(ctx),
      account: (named) => chooseAccount(ctx, named),
      chooseCharges: (example) => chooseCharges(ctx, example),
    },
  );
  if (!ctx.json) for (const note of prepared.notes) ctx.note(note);
  if (!ctx.json)
    for (const r of prepared.reconciliation)
      if (!prepared.notes.some((n) => n.startsWith('Reconciled')))
        ctx.note(`Reconciled: opening ${r.opening} + ${r.sum} = closing ${r.closing}.`);
  if (prepared.left.length && !ctx.json) {
    const lines = prepared.left.map((l) => `line ${l.line} (${l.reason})`).join(', ');
    ctx.note(
      `Leaving out ${prepared.left.length} row${prepared.left.length === 1 ? '' : 's'} that are not booked movements: ${lines}.`,
    );
  }
  const keys = { digest, fingerprint: prepared.fingerprint };
  if (prepared.into === 'budget_lines') await send(ctx, path, options, prepared.rows, prepared.target, keys);
  else {
    // Card payments are transfers: paired with the paying account's entry when the workspace holds it.
    const paired = await pairWithWorkspace(prepared.rows, (sql) => readRows(ctx, sql));
    if (!ctx.json) for (const note of paired.notes) ctx.note(note);
    const steps: TransferStep[] = paired.steps;
    // What the workspace held shapes the batches: their Idempotency-Keys say so.
    const fingerprint = pairedFingerprint(prepared.fingerprint, prepared.rows, paired);
    await send(ctx, path, options, paired.rows, prepared.target, { digest, fingerprint }, steps);
  }
}

/** A SELECT in the workspace (the import's transfer lookups). */
async function readRows(ctx: Context, sql: string): Promise<Record<string, unknown>[]> {
  const result = await (await ctx.api()).query(sql);
  return (result.data.statements[0]?.rows ?? []) as Record<string, unknown>[];
}

/** The workspace's reporting_currency (workspace_settings), for a file that names no currency. */
async function workspaceCurrency(ctx: Context): Promise<string> {
  const result = await (await ctx.api()).query('SELECT reporting_currency FROM workspace_settings');
  const value = result.data.statements[0]?.rows[0]?.reporting_currency;
  return typeof value === 'string' && value !== '' ? value : 'USD';
}
