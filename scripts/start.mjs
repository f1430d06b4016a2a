#!/usr/bin/env node
// `pnpm start [flags]` is `expense-server start [flags]`.
// `pnpm start -- --help` passes the `--` on: drop it, or commander reads every flag after it as an argument.
if (process.argv[2] === '--') process.argv.splice(2, 1);
process.argv.splice(2, 0, 'start');
await import('./expense-server.mjs');
