// The type of the import core the Import page loads (console/build/import-core.js, bundled by the server's
// build from the CLI's import code): the CLI's own module, so the page is checked against what it calls.
export type ImportCore = typeof import('../../../cli/src/import/browser.js');
