/**
 * @expense/cli as a library: run the `expense` command in-process, and the pure parts it is built from
 * (CSV import planning, SQL literals, table rendering) for programs that want the same behaviour.
 */

export {
  buildInsert,
  idempotencyKey,
  parseCsv,
  parseMapArgs,
  planBatches,
  resolveMapping,
  validateRecords,
} from '@expense/import';
export type { IO } from './context.js';
export { CliError, ExitCode } from './errors.js';
export { exitCodeForApiError } from './http/exit-codes.js';
export { renderCsv } from './output/csv.js';
export { renderTable } from './output/table.js';
export { createProgram, run } from './program.js';
export { quoteLiteral } from './sql/literal.js';
export { scriptMayWrite, splitStatements } from './sql/statements.js';
export { VERSION } from './version.js';
