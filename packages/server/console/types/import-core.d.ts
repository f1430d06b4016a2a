// The type of the import core the Import page loads (console/build/import-core.js, bundled by the server's
// build from packages/import's browser entry): the package's own module, so the page is checked against what it calls.
export type ImportCore = typeof import('../../../import/src/browser.js');
export type { ImportNote } from '../../../import/src/notes.js';
export type { PreparedImport } from '../../../import/src/prepare.js';
export type { RowProblem } from '../../../import/src/rows/validate.js';
export type { Batch, ImportRow } from '../../../import/src/send/batches.js';
export type { BatchRunner, ImportSummary } from '../../../import/src/send/run.js';

/** What the Import page imports: a bank file's ledger entries (it asks for no other target). */
export type PreparedLedger = Extract<
  import('../../../import/src/prepare.js').PreparedImport,
  { into: 'ledger_entries' }
>;
export type LedgerBatch = import('../../../import/src/send/batches.js').Batch;
