// A private PgBouncer in transaction mode for one test file (or the benchmark): its own port, config and auth
// file in a temporary directory, in front of the local PostgreSQL (127.0.0.1:5432, trust). Stopped after.
// No vitest here, so that bench/ can use it outside vitest.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suiteRuns } from './system-dependency.js';

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];
export const INSTALL_COMMAND =
  'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pgbouncer';
export const INSTALL_HINT = `install it with: ${INSTALL_COMMAND}`;

/** The PgBouncer binary, or undefined when it is not installed. */
export function pgbouncerBinary(): string | undefined {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  try {
    return execFileSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the pooler suites run: yes when PgBouncer is installed; when it is not, outside CI they are skipped
 * (one line says why and how to install it), under CI=true they run and fail.
 */
export function poolerAvailable(suite: string): boolean {
  return suiteRuns(suite, pgbouncerBinary() === undefined ? ['pgbouncer'] : [], INSTALL_COMMAND);
}

export interface PgBouncerOptions {
  /** Server connections per (database, user): default 5, fewer than the server's pool so that they are shared. */
  poolSize?: number;
  maxClientConn?: number;
  upstreamHost?: string;
  upstreamPort?: number;
}

export interface PgBouncer {
  port: number;
  /** The pooled URL of `database` (any database of the upstream server is served). */
  urlOf(database: string): string;
  /** PgBouncer's own log (stderr), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** The settings the server is tested with (docs/operations.md, "Behind a pooler", shows the same). */
export function pgbouncerIni(options: {
  port: number;
  authFile: string;
  poolSize: number;
  maxClientConn: number;
  upstreamHost: string;
  upstreamPort: number;
}): string {
  return `[databases]
* = host=${options.upstreamHost} port=${options.upstreamPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${options.port}
unix_socket_dir =
auth_type = trust
auth_file = ${options.authFile}
pool_mode = transaction
max_client_conn = ${options.maxClientConn}
default_pool_size = ${options.poolSize}
min_pool_size = 0
reserve_pool_size = 0
server_reset_query =
query_wait_timeout = 10
ignore_startup_parameters = extra_float_digits
server_lifetime = 3600
server_idle_timeout = 60
log_connections = 0
log_disconnections = 0
`;
}

/** Starts PgBouncer 1.18+ in transaction mode on a free port; `stop()` ends it and removes its directory. */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error(`pgbouncer is not installed; ${INSTALL_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), 'expense-pgbouncer-'));
  // PgBouncer refuses to run as root: it then runs as postgres (-u), which must read the directory.
  await chmod(dir, 0o755);
  const authFile = join(dir, 'userlist.txt');
  await writeFile(authFile, '"postgres" ""\n', { mode: 0o644 });
  const configFile = join(dir, 'pgbouncer.ini');
  let child: ChildProcess | undefined;
  let output = '';
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    const port = await freePort();
    const ini = pgbouncerIni({
      port,
      authFile,
      poolSize: options.poolSize ?? 5,
      maxClientConn: options.maxClientConn ?? 200,
      upstreamHost: options.upstreamHost ?? '127.0.0.1',
      upstreamPort: options.upstreamPort ?? 5432,
    });
    await writeFile(configFile, ini, { mode: 0o644 });
    const args = process.getuid?.() === 0 ? ['-u', 'postgres', configFile] : [configFile];
    const started = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    let exited = false;
    started.once('exit', () => {
      exited = true;
    });
    for (let i = 0; i < 100 && !exited; i++) {
      if (await accepts(port)) {
        child = started;
        const running = started;
        // A test process that ends without stop() (a crash, a timeout) takes its PgBouncer with it.
        const orphaned = () => running.kill('SIGKILL');
        process.once('exit', orphaned);
        return {
          port,
          urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
          log: () => output,
          async stop() {
            process.off('exit', orphaned);
            if (running.exitCode === null) {
              const gone = new Promise((resolve) => running.once('exit', resolve));
              running.kill('SIGINT');
              await gone;
            }
            await rm(dir, { recursive: true, force: true });
          },
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!exited) started.kill('SIGKILL');
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`PgBouncer did not start:\n${output}`);
}
