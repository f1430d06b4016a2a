import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { migratedPostgres, runEnv } from '@expense/test-kit';

/** End-to-end helpers: the BUILT server and the BUILT CLI as child processes, nothing in-process. */
export const CLI_BIN = resolve(import.meta.dirname, '../../dist/bin.js');
export const SERVER_BIN = resolve(import.meta.dirname, '../../../server/dist/bin.js');

export function assertBuilt(): void {
  for (const bin of [CLI_BIN, SERVER_BIN]) {
    if (!existsSync(bin)) {
      throw new Error(
        `${bin} is missing: run \`pnpm --filter "@expense/server..." --filter @expense/cli build\` first`,
      );
    }
  }
}

export interface RunningServer {
  apiUrl: string;
  outbox: string;
  stop(): Promise<void>;
}

/** Starts `expense-server start` on a free port with an in-memory database and a mail outbox. */
export async function startServer(dir: string, env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const outbox = join(dir, 'outbox');
  const child = spawn(process.execPath, [SERVER_BIN, 'start'], {
    env: {
      PATH: process.env.PATH,
      EXPENSE_HOST: '127.0.0.1',
      EXPENSE_PORT: '0',
      DATABASE_URL: 'memory://',
      EXPENSE_MAIL_OUTBOX: outbox,
      EXPENSE_LOG_LEVEL: 'warn',
      // `memory://` starts from the run's migrated copy (vitest.global-setup.ts), in the run's TMPDIR
      ...runEnv(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/\S+\/v1)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  // One that did not start in time is stopped, not left running (with its database) after the suite gives up.
  const apiUrl = await started.catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return { apiUrl, outbox, stop: () => stopChild(child) };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  child: ChildProcess;
  result: Promise<CliResult>;
  /** Resolves when the output so far matches. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<void>;
  write(text: string): void;
}

/**
 * An empty runtime directory for every command started here: without it the CLI would look for a session bus at
 * /run/user/<uid>/bus, where another test may have one running at that moment (docs-configs' keyring case).
 */
const RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'expense-cli-run-'));
process.once('exit', () => rmSync(RUNTIME_DIR, { recursive: true, force: true }));

/**
 * Starts a command; `env` is the whole environment apart from PATH and an empty XDG_RUNTIME_DIR (no D-Bus, no
 * inherited keys).
 */
export function spawnCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): CliRun {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, XDG_RUNTIME_DIR: RUNTIME_DIR, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  const waiters: { pattern: RegExp; stream: 'stdout' | 'stderr'; done: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.pattern.test(out[w.stream])) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
    }
  };
  child.stdout.on('data', (c: Buffer) => {
    out.stdout += c.toString();
    check();
  });
  child.stderr.on('data', (c: Buffer) => {
    out.stderr += c.toString();
    check();
  });
  child.stdin.on('error', () => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const result = new Promise<CliResult>((r) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const w of waiters) w.done();
      r({ code, ...out });
    }),
  );
  return {
    child,
    result,
    write: (text) => child.stdin.write(text),
    waitFor: (pattern, stream = 'stderr') =>
      new Promise<void>((done) => {
        waiters.push({ pattern, stream, done });
        check();
      }),
  };
}

/** Runs the built CLI to completion. */
export async function cli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  const run = spawnCommand(process.execPath, [CLI_BIN, ...args], env);
  if (input !== undefined) run.write(input);
  run.child.stdin?.end();
  return run.result;
}

/** The newest sign-in code mailed to `email` that is not in `seen`. */
export async function codeFromOutbox(
  outbox: string,
  email: string,
  seen: Set<string>,
  timeoutMs = 20_000,
): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const files = existsSync(outbox) ? (await readdir(outbox)).filter((f) => f.endsWith('.json')).sort() : [];
    for (const file of files.reverse()) {
      if (seen.has(file)) continue;
      const mail = JSON.parse(await readFile(join(outbox, file), 'utf8')) as { to: string; text: string };
      if (!String(mail.to).includes(email)) continue;
      const code = /\b(\d{8})\b/.exec(mail.text)?.[1];
      if (code) {
        seen.add(file);
        return code;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no sign-in mail for ${email} in ${outbox}`);
}

/** `expense login --email` without a terminal: the code is written to stdin once the mail is there. */
export async function loginWithoutTty(
  env: NodeJS.ProcessEnv,
  outbox: string,
  email: string,
  seen: Set<string>,
  extraArgs: string[] = [],
): Promise<CliResult> {
  const run = spawnCommand(process.execPath, [CLI_BIN, 'login', '--email', email, ...extraArgs], env);
  const code = await codeFromOutbox(outbox, email, seen);
  run.write(`${code}\n`);
  run.child.stdin?.end();
  return run.result;
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface Sandbox {
  dir: { path: string; remove(): Promise<void> };
  server: RunningServer;
  /** HOME and XDG_CONFIG_HOME inside the sandbox, EXPENSE_API_URL pointing at its server. */
  env: NodeJS.ProcessEnv;
  /** Stops the server, removes the directory and drops the sandbox's PostgreSQL database (when it has one). */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /**
   * The server's database: a fresh PostgreSQL one, or the embedded `memory://` that `pnpm start` runs (the
   * default). A PostgreSQL server starts on a third of the CPU (no WebAssembly to compile: ~2 CPU-s against ~6 on
   * a loaded machine), so the suites that test the CLI rather than the embedded path use it.
   */
  database?: 'memory' | 'postgres';
  /** More of the server's environment. */
  serverEnv?: NodeJS.ProcessEnv;
}

/** A temporary home and a running built server for one test file (close it after); its database starts migrated. */
export async function openSandbox(prefix: string, options: SandboxOptions = {}): Promise<Sandbox> {
  assertBuilt();
  const database = options.database === 'postgres' ? await migratedPostgres() : undefined;
  const dropDatabase = async () => database?.drop();
  try {
    const dir = await tempDir(prefix);
    const serverEnv = { ...options.serverEnv, ...(database ? { DATABASE_URL: database.url } : {}) };
    const server = await startServer(dir.path, serverEnv).catch(async (error: unknown) => {
      await dir.remove();
      throw error;
    });
    const env = { HOME: dir.path, XDG_CONFIG_HOME: join(dir.path, 'config'), EXPENSE_API_URL: server.apiUrl };
    const close = async () => {
      try {
        await server.stop();
        await dir.remove();
      } finally {
        await dropDatabase();
      }
    };
    return { dir, server, env, close };
  } catch (error) {
    await dropDatabase();
    throw error;
  }
}

/** Removes ANSI escape sequences (for matching output captured from a terminal). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
export const plain = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs the CLI inside a pseudo-terminal with util-linux `script`, so stdin, stdout and stderr are all
 * terminals; drive it with `write` (a line ends with "\r", as a keyboard sends it). Both streams of the CLI
 * arrive on `stdout`.
 */
export function spawnInTerminal(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): CliRun {
  const command = [process.execPath, CLI_BIN, ...args].map(shellQuote).join(' ');
  return spawnCommand('script', ['-qefc', command, '/dev/null'], { TERM: 'xterm', ...env }, timeoutMs);
}
