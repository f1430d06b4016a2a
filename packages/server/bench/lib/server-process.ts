import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { API_PREFIX } from '@expense/wire/route-paths';
import { SERVER_BIN_DIST, SERVER_BIN_SOURCE, SERVER_DIR } from './paths.js';

export interface ServerProcessOptions {
  /** Variables of config.md (EXPENSE_*, DATABASE_URL, ...); EXPENSE_HOST and EXPENSE_PORT are forced. */
  env: Record<string, string>;
  /** `dist` runs the built bin (what users run); `source` runs src/bin.ts through tsx (no build needed). */
  build?: 'dist' | 'source';
  /** Another built bin to run instead of dist/bin.js (a build of an earlier commit, to compare with). */
  bin?: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  startTimeoutMs?: number;
}

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** origin + /v1 */
  baseUrl: string;
  pid: number;
  child: ChildProcess;
  /** The last lines the process wrote (stdout and stderr), for diagnostics. */
  output(): string;
  /** SIGTERM (graceful) and wait; SIGKILL after graceMs. Resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<string>;
  /** SIGKILL at once, wait for the exit. */
  kill(): Promise<string>;
  exited: Promise<string>;
}

/** Which build the harness runs: EXPENSE_PROOF_BUILD (`pnpm bench` sets dist after building), else source. */
export function defaultBuild(): 'dist' | 'source' {
  // The built server is what users run (and tsx compiling the source would add ~80 MiB to every RSS number);
  // EXPENSE_PROOF_BUILD=source measures the source instead.
  if (process.env.EXPENSE_PROOF_BUILD === 'source' || !existsSync(SERVER_BIN_DIST)) return 'source';
  return 'dist';
}

/** Starts `expense-server start` on 127.0.0.1 with a free port and waits for the line that names its URL. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const build = options.build ?? defaultBuild();
  const args =
    build === 'dist'
      ? [...(options.nodeArgs ?? []), options.bin ?? SERVER_BIN_DIST, 'start']
      : [
          '--conditions=@expense/source',
          '--import',
          'tsx',
          ...(options.nodeArgs ?? []),
          SERVER_BIN_SOURCE,
          'start',
        ];
  const child = spawn(process.execPath, args, {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      EXPENSE_LOG_LEVEL: 'warn',
      ...options.env,
      EXPENSE_HOST: '127.0.0.1',
      EXPENSE_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (tail.length > 200) tail.splice(0, tail.length - 200);
  };
  child.stderr!.on('data', keep);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
  );
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start in time:\n${tail.join('\n')}`));
    }, options.startTimeoutMs ?? 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      const match = /serving (http:\/\/[^\s/]+)\/v1/.exec(chunk.toString('utf8'));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${how}) before serving:\n${tail.join('\n')}`));
    });
  });
  const stop = async (graceMs = 35_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const how = await exited;
    clearTimeout(timer);
    return how;
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  };
  // Never leave a server behind when the harness itself stops.
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    origin,
    baseUrl: `${origin}${API_PREFIX}`,
    pid: child.pid!,
    child,
    output: () => tail.join('\n'),
    stop,
    kill,
    exited,
  };
}
