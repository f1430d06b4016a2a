/**
 * How `expense-server backup` reaches the server running on a data directory: at listen, the server writes
 * `expense-server.json` into its data directory (mode 0600: its owner only) with its pid, a loopback URL and a
 * random token; `POST /admin/backup` answers a consistent dump to a loopback client that presents the token.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

export const SERVER_STATE_FILE = 'expense-server.json';
export const ADMIN_BACKUP_PATH = '/admin/backup';

export interface ServerState {
  pid: number;
  /** http://127.0.0.1:<port> (or the address the server is bound to); null until it listens. */
  url: string | null;
  token: string;
}

export function newAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

export async function writeServerState(dataDir: string, state: ServerState): Promise<void> {
  const file = join(dataDir, SERVER_STATE_FILE);
  const partial = `${file}.${process.pid}.partial`;
  await rm(partial, { force: true });
  await writeFile(partial, `${JSON.stringify(state)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(partial, file);
}

/** Removes the state file if it is still this server's (another may have started since). */
export async function removeServerState(dataDir: string, token: string): Promise<void> {
  const state = await readServerState(dataDir);
  if (state?.token === token) await rm(join(dataDir, SERVER_STATE_FILE), { force: true });
}

export async function readServerState(dataDir: string): Promise<ServerState | undefined> {
  try {
    const value = JSON.parse(await readFile(join(dataDir, SERVER_STATE_FILE), 'utf8')) as ServerState;
    if (
      typeof value.pid !== 'number' ||
      (typeof value.url !== 'string' && value.url !== null) ||
      typeof value.token !== 'string'
    )
      return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** The server whose state file is in `dataDir`, if its process still runs (a killed one leaves the file). */
export async function runningServer(dataDir: string): Promise<ServerState | undefined> {
  const state = await readServerState(dataDir);
  if (!state) return undefined;
  try {
    process.kill(state.pid, 0);
    return state;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? state : undefined;
  }
}

/** The address a local client reaches a server bound to `host` on. */
export function loopbackUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '127.0.0.1' || host === 'localhost') return `http://127.0.0.1:${port}`;
  if (host === '::' || host === '::1') return `http://[::1]:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** POST /admin/backup: loopback clients with the token only; 404 to anyone else (the route is not advertised). */
export function registerAdminBackup(
  app: FastifyInstance,
  token: string,
  dump: () => Promise<Uint8Array>,
): void {
  app.post(ADMIN_BACKUP_PATH, async (request, reply) => {
    const given = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!isLoopback(request.socket.remoteAddress) || !sameToken(given, token)) {
      return reply.code(404).send({ error: { code: 'not_found', message: 'Not found.' } });
    }
    const started = Date.now();
    const bytes = await dump();
    request.log.info(
      { bytes: bytes.length, ms: Date.now() - started },
      'backup: dumped the embedded database',
    );
    return reply.type('application/gzip').send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  });
}
