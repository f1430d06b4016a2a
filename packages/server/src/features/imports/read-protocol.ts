// What the import read pool (read-pool.ts) and its worker threads (read-worker.ts) say to each other.
import type { ImportRequest, PreparedImport } from '@expense/import';

/** A file to read: the request as prepareImport takes it, and the workspace's currency asked beforehand. */
export interface ReadRequest {
  id: number;
  request: ImportRequest;
  workspaceCurrency: string;
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
}

/** The dates read two ways: the caller refuses it as it always did (the worker cannot throw its ApiError). */
export const DATE_ORDER = 'import_date_order';

export type ReadResponse =
  | { ready: true }
  | { id: number; prepared: ReadPrepared }
  | { id: number; refusal: ReadRefusal }
  | { id: number; failure: string };
