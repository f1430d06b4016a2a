import { type Batch, buildInsert, type ImportRow, type ImportTarget, idempotencyKey } from './batches.js';

/** What a batch's answer carries that the runner reads (the API's SQL result, `POST /v1/sql`). */
export interface SqlResultData {
  statements: { rowCount?: number | null }[];
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
  rows: number;
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
  const rows = batches.reduce((n, b) => n + b.rows.length, 0);
  const summary: ImportSummary = {
    rows,
    inserted: 0,
    skipped: 0,
    failed: 0,
    notSent: 0,
    dryRun: options.dryRun,
  };
  let done = 0;
  for (const batch of batches) {
    const sql = batch.sql ?? buildInsert(batch.rows, target);
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
      summary.failed = batch.rows.length;
      summary.notSent = rows - done - batch.rows.length;
      throw new BatchFailed(batch, summary, error);
    }
    const inserted = result.replayed ? 0 : (result.data.statements[0]?.rowCount ?? 0);
    summary.inserted += inserted;
    summary.skipped += batch.rows.length - inserted;
    // A replayed batch answers an earlier run's change: this run made none.
    if (!options.dryRun && !result.replayed && result.data.changeId) summary.changeId = result.data.changeId;
    done += batch.rows.length;
    options.onProgress?.(done);
  }
  return summary;
}
