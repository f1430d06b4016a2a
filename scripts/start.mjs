#!/usr/bin/env node
// `pnpm start [flags]` is `expense-server start [flags]`.
process.argv.splice(2, 0, 'start');
await import('./expense-server.mjs');
