// The type of the import core the Import page loads (console/build/import-core.js, bundled by the server's
// build from the CLI's import code): the CLI's own module, so the page is checked against what it calls.
export type ImportCore = typeof import('../../../cli/src/import/browser.js');
export type { Batch, ImportRow } from '../../../cli/src/import/batches.js';
export type { PreparedImport } from '../../../cli/src/import/prepare.js';
export type { BatchRunner, ImportSummary } from '../../../cli/src/import/run.js';
export type { RowProblem } from '../../../cli/src/import/validate.js';

/** What the Import page imports: a bank file's ledger entries (it asks for no other target). */
export type PreparedLedger = Extract<
  import('../../../cli/src/import/prepare.js').PreparedImport,
  { into: 'ledger_entries' }
>;
export type LedgerBatch = import('../../../cli/src/import/batches.js').Batch;
