import { clearingLegs, fileRows, heldOn, type TransferBooked } from '../transfers/booked.js';
import { clearingLegOf, isClearingId } from '../transfers/legs.js';
import { type Batch, buildInsert, type ImportRow, type ImportTarget, idempotencyKey } from './batches.js';

/** What a batch's answer carries that the runner reads (the API's SQL result, `POST /v1/sql`). */
export interface SqlResultData {
  statements: { rowCount?: number | null; rows?: { external_id?: unknown }[] | undefined }[];
  changeId?: string | null | undefined;
}

/** The change the batches of one import share in the history (`X-Change-Group`). */
export interface ChangeGroup {
  id: string;
  label: string;
}

/** One API call's answer as the runner needs it: its data, and whether it was replayed from an Idempotency-Key. */
export interface CallResult<T> {
  data: T;
  replayed: boolean;
}

export interface ImportSummary {
  /** The file's rows sent (a transfer's clearing leg is the other side of one of them, not a row of the file). */
  rows: number;
  /** The file's rows inserted (would be, in a dry run): each transfer's leg among them is in `transfers`. */
  inserted: number;
  /** Rows whose external_id the workspace already held (or that an earlier run of the same batch inserted). */
  skipped: number;
  /** Rows of the batch that failed. */
  failed: number;
  /** Rows after a failed batch, never sent. */
  notSent: number;
  dryRun: boolean;
  /** The change that stands for the import in the history (its newest batch's): revert it to undo the import. */
  changeId?: string;
  /** The rows inserted that are a transfer's leg (transfers/booked.ts's transfersLine words them). */
  transfers: TransferBooked[];
}

export type BatchRunner = (
  sql: string,
  options: { dryRun: boolean; idempotencyKey?: string; changeGroup?: ChangeGroup },
) => Promise<CallResult<SqlResultData>>;

export class BatchFailed extends Error {
  constructor(
    readonly batch: Batch<ImportRow>,
    readonly summary: ImportSummary,
    override readonly cause: unknown,
  ) {
    super('an import batch failed');
  }
}

/**
 * Sends the probe and the batches in order, one at a time. A dry run sends every batch with dryRun (and no
 * Idempotency-Key, whose stored response would otherwise answer the real run later).
 */
export async function runBatches<R extends ImportRow>(
  batches: Batch<R>[],
  target: ImportTarget<R>,
  keys: { fileDigest: string; fingerprint: string },
  send: BatchRunner,
  options: { dryRun: boolean; onProgress?: (done: number) => void; changeGroup?: ChangeGroup },
): Promise<ImportSummary> {
  const rows = batches.reduce((n, b) => n + fileRows(b.rows).length, 0);
  const summary: ImportSummary = {
    rows,
    inserted: 0,
    skipped: 0,
    failed: 0,
    notSent: 0,
    dryRun: options.dryRun,
    transfers: [],
  };
  let done = 0;
  for (const batch of batches) {
    const own = fileRows(batch.rows).length;
    // A batch with clearing legs says which rows it inserted: those legs are counted apart from the file's rows.
    const clearings = clearingLegs(batch.rows);
    const sql =
      batch.sql ?? `${buildInsert(batch.rows, target)}${clearings.length ? '\nRETURNING external_id' : ''}`;
    let result: CallResult<SqlResultData>;
    try {
      result = await send(sql, {
        dryRun: options.dryRun,
        ...(options.dryRun
          ? {}
          : {
              idempotencyKey: idempotencyKey(keys.fileDigest, keys.fingerprint, batch.index),
              ...(options.changeGroup ? { changeGroup: options.changeGroup } : {}),
            }),
      });
    } catch (error) {
      summary.failed = own;
      summary.notSent = rows - done - own;
      throw new BatchFailed(batch, summary, error);
    }
    const statement = result.data.statements[0];
    const changed = result.replayed ? 0 : (statement?.rowCount ?? 0);
    let inserted = changed;
    if (clearings.length && changed > 0) {
      const returned = new Set((statement?.rows ?? []).map((r) => String(r.external_id)));
      const held = clearings.filter((c) =>
        returned.has((c as unknown as { external_id: string }).external_id),
      );
      inserted -= [...returned].filter(isClearingId).length;
      for (const leg of held) {
        const of = clearingLegOf(leg as never);
        const row = batch.rows.find((r) => (r as unknown as { external_id: string }).external_id === of);
        summary.transfers.push(heldOn(row?.line ?? leg.line));
      }
    }
    if (batch.transfer && inserted > 0)
      summary.transfers.push({ line: batch.rows[0]!.line, ...batch.transfer });
    summary.inserted += inserted;
    summary.skipped += own - inserted;
    // A replayed batch answers an earlier run's change: this run made none.
    if (!options.dryRun && !result.replayed && result.data.changeId) summary.changeId = result.data.changeId;
    done += own;
    options.onProgress?.(done);
  }
  return summary;
}
