// What the import read pool (read-pool.ts) gives its worker threads (read-worker.ts) and what they answer.
import type { ImportRequest, ImportSituation, PreparedImport } from '@expense/import';

/** A file to read: the request as prepareImport takes it, and the workspace's currency asked beforehand. */
export interface ReadRequest {
  /** The read's number in its pool: what the thread's ReadStarted names. */
  id: number;
  request: ImportRequest;
  workspaceCurrency: string;
}

/** Posted on the thread's parentPort as it starts a read: the pool counts the reads under way. */
export interface ReadStarted {
  reading: number;
}

/** The prepared rows, less their target (functions do not cross threads: the caller puts it back). */
export type ReadPrepared = Omit<PreparedImport, 'target'>;

/** An ImportError as its fields (an Error's class does not cross threads). */
export interface ReadRefusal {
  code: string;
  message: string;
  exitCode: number;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
  situation?: ImportSituation | undefined;
}

/** The dates read two ways: the caller refuses it as it always did (the worker cannot throw its ApiError). */
export const DATE_ORDER = 'import_date_order';

export type ReadResponse = { prepared: ReadPrepared } | { refusal: ReadRefusal } | { failure: string };
