#!/usr/bin/env node
// `pnpm start [flags]` is `expense-server start [flags]`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { buildIfStale } from './build-if-stale.mjs';

// Build only what the server runs: the ES modules of the guard, the bank-file reader and the server (no CommonJS
// twins, no type declarations, no CLI); `pnpm build` makes the rest. Each is checked on its own, in that order.
const lean = ['--format', 'esm', '--no-dts'];
buildIfStale({
  bin: 'packages/sql-guard/dist/index.js',
  sources: ['packages/sql-guard/src', 'packages/sql-guard/package.json'],
  filter: '@expense/sql-guard',
  args: lean,
});
buildIfStale({
  bin: 'packages/import/dist/index.js',
  sources: ['packages/import/src', 'packages/import/package.json'],
  filter: '@expense/import',
  args: lean,
});
const bin = buildIfStale({
  bin: 'packages/server/dist/bin.js',
  sources: [
    'packages/sql-guard/src',
    'packages/import/src',
    'packages/server/src',
    'packages/server/migrations',
    'packages/wire/src',
    'packages/mcp/src',
  ],
  filter: '@expense/server',
  args: lean,
});

// `pnpm start -- --help` passes the `--` on: drop it, or commander reads every flag after it as an argument.
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));

/**
 * In development, without SMTP, the sign-in mail goes to the log as one JSON line among many: the code is printed
 * after it as a plain line a person finds ("Sign-in code for you@example.com: 12345678").
 */
function signInLine(line) {
  if (!line.startsWith('{') || !line.includes('"mail"')) return undefined;
  try {
    const { mail } = JSON.parse(line);
    const code = /\b(\d{8})\b/.exec(mail?.text ?? '')?.[1];
    return code ? `Sign-in code for ${mail.to}: ${code}` : undefined;
  } catch {
    return undefined;
  }
}

const child = spawn(process.execPath, [bin, 'start', ...args], { stdio: ['inherit', 'pipe', 'inherit'] });
createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  const plain = signInLine(line);
  if (plain) process.stdout.write(`${plain}\n`);
});
// The server stops gracefully on SIGINT/SIGTERM; pass them on and leave with its exit code.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
