/**
 * The import core as the web console loads it (packages/server/console/build/import-core.js, bundled from this
 * file by the server's build with `digest.browser.ts` in place of `digest.ts` and csv-parse's browser build):
 * the same recognition, parsing, validation, duplicate keys, batches and batch runner as `expense import`, so a
 * file imported in the browser and with the CLI gives the same rows and external_ids. No Node module is
 * reachable from here; reading the file (File API) and calling the API are the page's.
 */

export { decodeBytes } from './csv/decode.js';
export { DATE_FORMATS } from './csv/dialect.js';
export { PRESET_NAMES, PRESETS } from './csv/presets.js';
export { ImportError } from './errors.js';
export { prepareImport } from './prepare.js';
export { buildInsert, idempotencyKey, MAX_BATCH_ROWS, planBatches } from './send/batches.js';
export { sha256Hex } from './send/digest.js';
export { BatchFailed, runBatches } from './send/run.js';
export { fileRows, transfersLine } from './transfers/booked.js';
export { CLEARING_ACCOUNT } from './transfers/legs.js';
export { pairedBatches, pairedFingerprint, pairWithWorkspace } from './transfers/sql.js';
