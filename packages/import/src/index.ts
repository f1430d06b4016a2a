/**
 * @expense/import: a bank's export read into ledger rows (pure core; reading the file and calling the API are the
 * caller's). `prepareImport` is the whole path from bytes to validated rows; the rest is what the CLI, the
 * server and the console build on.
 */

export { closestPresets, mapLines, nameColumns } from './csv/columns.js';
export { type Decoded, decodeBytes, type Encoding, encodingNamed } from './csv/decode.js';
export {
  DATE_FORMATS,
  type DateFormat,
  type Delimiter,
  detectDateFormat,
  detectDelimiter,
  isoDate,
  normaliseAmount,
  parseDelimiter,
} from './csv/dialect.js';
export { detectDecimalComma, looksLikeAmount, looksLikeDate } from './csv/looks.js';
export { findColumn, type Mapping, normalise, parseMapArgs, resolveMapping } from './csv/mapping.js';
export { type CsvRecord, CsvSyntaxError, parseCsv, readRecords } from './csv/parse.js';
export { PRESET_NAMES, PRESETS, type Preset, type PresetName, presetNamed } from './csv/presets.js';
export { type NamedPreset, NotThatLayout, type Recognition, recognise } from './csv/recognise.js';
export {
  ExitCode,
  ImportError,
  type ImportExitCode,
  type ImportSituation,
  refusal,
  usageError,
} from './errors.js';
export { type ImportNote, type ImportSetting, type NoteReader, noteWords, problemWords } from './notes.js';
export {
  type ImportHooks,
  type ImportRequest,
  type PreparedImport,
  prepareImport,
} from './prepare.js';
export { BUDGET_TARGET, budgetMonth, validateBudget } from './rows/budget.js';
export {
  BUDGET_FIELD_SET,
  type BudgetRow,
  type FieldSet,
  LEDGER_FIELD_SET,
  LEDGER_FIELDS,
  type LedgerField,
  type LedgerRow,
} from './rows/fields.js';
export {
  eventProblems,
  type RowFix,
  type RowProblem,
  type Validation,
  validateRecords,
} from './rows/validate.js';
export { parseAmount, parseCurrency, parseTimestamp, signOf } from './rows/values.js';
export {
  type Batch,
  buildInsert,
  type ImportRow,
  type ImportTarget,
  idempotencyKey,
  LEDGER_TARGET,
  MAX_BATCH_ROWS,
  planBatches,
} from './send/batches.js';
export { sha256Hex } from './send/digest.js';
export { type LiteralType, quoteLiteral } from './send/literal.js';
export {
  BatchFailed,
  type BatchRunner,
  type CallResult,
  type ChangeGroup,
  type ImportSummary,
  runBatches,
  type SqlResultData,
} from './send/run.js';
export { fileRows, type TransferBooked, transfersLine } from './transfers/booked.js';
export {
  CLEARING_ACCOUNT,
  cardPaymentLegs,
  cardPaymentsOn,
  clearingLegOf,
  isClearingId,
  PAIR_WINDOW_DAYS,
} from './transfers/legs.js';
export { type Paired, pairTransfers, type TransferStep, type WorkspaceEntry } from './transfers/pair.js';
export {
  pairedBatches,
  pairedFingerprint,
  pairWithWorkspace,
  stepBatches,
  stepSql,
  transferLookups,
} from './transfers/sql.js';
