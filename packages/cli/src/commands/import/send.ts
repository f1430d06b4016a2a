import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import {
  BatchFailed,
  buildInsert,
  fileRows,
  type ImportRow,
  type ImportSummary,
  type ImportTarget,
  planBatches,
  runBatches,
  stepBatches,
  type TransferStep,
  transfersLine,
} from '@expense/import';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { ProgressBar } from '../../output/progress.js';
import { approve, callSql, showSql, workspaceLabel } from '../shared.js';

export interface SendOptions {
  yes?: boolean;
  dryRun?: boolean;
}

/** An import's summary with the short id of its change (the form `expense history` shows and `expense revert` takes). */
type Summary = ImportSummary & { shortId?: string };

function summaryLine(s: Summary): string {
  const verb = s.dryRun ? 'would be inserted' : 'inserted';
  // A transfer's legs are said apart: `3 inserted (1 of them a card payment paired with checking)`.
  const transfers = transfersLine(s.transfers ?? []);
  const parts = [
    `${s.inserted} ${verb}${transfers ? ` (${transfers})` : ''}`,
    `${s.skipped} skipped as already present`,
    `${s.failed} failed`,
  ];
  if (s.notSent) parts.push(`${s.notSent} not sent`);
  const id = s.shortId ?? s.changeId;
  const recorded = id ? ` Committed as change ${id} (undo the whole import: expense revert ${id}).` : '';
  return `${s.dryRun ? 'Dry run (nothing was changed): ' : ''}${parts.join(', ')} (of ${s.rows} row${s.rows === 1 ? '' : 's'}).${recorded}`;
}

function printSummary(ctx: Context, summary: Summary): void {
  if (ctx.json) ctx.printJson(summary);
  else ctx.note(`${summary.failed ? ctx.err.red('✗') : ctx.err.green('✓')} ${summaryLine(summary)}`);
}

/** Plans the batches, shows the probe, asks once, sends them in order and prints the summary. */
export async function send<R extends ImportRow>(
  ctx: Context,
  path: string,
  options: SendOptions,
  rows: R[],
  target: ImportTarget<R>,
  keys: { digest: string; fingerprint: string },
  steps: TransferStep[] = [],
): Promise<void> {
  if (rows.length + steps.length === 0) {
    if (ctx.json)
      ctx.printJson({
        rows: 0,
        inserted: 0,
        skipped: 0,
        failed: 0,
        notSent: 0,
        dryRun: Boolean(options.dryRun),
        transfers: [],
      });
    else ctx.note(`${path} has no rows to import.`);
    return;
  }

  await ctx.key(); // signed in at all? Asked before the approval question, not after it.
  const inserts = planBatches(rows, target);
  // A transfer's step is a statement of its own, after the rows' batches (transfers/sql.ts of @expense/import).
  const batches = [...inserts, ...(stepBatches(steps, inserts.length) as unknown as typeof inserts)];
  // The file's rows: a clearing leg the import adds is the other side of one of them.
  const total = fileRows(rows).length + steps.length;
  const where = await workspaceLabel(ctx);
  if (!ctx.json) {
    const rest = batches.length - 1;
    ctx.note(
      `${options.dryRun ? 'Dry run: ' : ''}${total} row${total === 1 ? '' : 's'} from ${path} into ${target.table} of ${where}: ` +
        `a probe of ${batches[0]!.rows.length} row${batches[0]!.rows.length === 1 ? '' : 's'}` +
        (rest ? `, then ${rest} batch${rest === 1 ? '' : 'es'} of up to 100 rows.` : '.') +
        (target.table === 'ledger_entries'
          ? ' Rows whose external_id (or event_id) is already there are skipped.'
          : ' Lines whose month, direction and category are already there are skipped.'),
    );
    showSql(
      ctx,
      'The probe (every batch has the same shape):',
      batches[0]!.sql ?? buildInsert(batches[0]!.rows, target),
    );
  }
  if (!options.dryRun)
    await approve(ctx, `Import ${total} row${total === 1 ? '' : 's'} into ${where}?`, options.yes);

  const progress = new ProgressBar(ctx.io.stderr, total, options.dryRun ? 'checking' : 'importing');
  // The short id of each change a batch answered: the summary names its change by it.
  const shortIds = new Map<string, string>();
  const withShortId = (summary: ImportSummary): Summary => {
    const shortId = summary.changeId ? shortIds.get(summary.changeId) : undefined;
    return shortId ? { ...summary, shortId } : summary;
  };
  try {
    const summary = await runBatches(
      batches,
      target,
      { fileDigest: keys.digest, fingerprint: keys.fingerprint },
      async (sql, o) => {
        const result = await callSql(ctx, '/sql/execute', sql, o);
        if (result.data.changeId && result.data.shortId)
          shortIds.set(result.data.changeId, result.data.shortId);
        return result;
      },
      {
        dryRun: Boolean(options.dryRun),
        onProgress: (done) => !ctx.json && progress.update(done),
        // Every batch of this run joins one change group: the history shows the import as one entry.
        changeGroup: { id: randomUUID(), label: `import ${basename(path)}` },
      },
    );
    progress.done();
    printSummary(ctx, withShortId(summary));
  } catch (error) {
    progress.done();
    if (!(error instanceof BatchFailed)) throw error;
    const cause = error.cause instanceof CliError ? error.cause : undefined;
    const lines = `lines ${error.batch.rows[0]!.line}–${error.batch.rows.at(-1)!.line}`;
    if (!ctx.json) ctx.note(`${ctx.err.red('✗')} ${summaryLine(withShortId(error.summary))}`);
    throw new CliError(
      cause?.code ?? 'import_failed',
      `${error.batch.probe ? 'The probe' : `Batch ${error.batch.index}`} (${lines}) failed: ${
        cause?.message ?? String(error.cause)
      }`,
      cause?.exitCode ?? ExitCode.failure,
      {
        hint:
          cause?.hint ??
          'Rows before this batch are in; running the same import again skips them and continues.',
        details: { ...(cause?.details ?? {}), summary: error.summary },
      },
    );
  }
}
