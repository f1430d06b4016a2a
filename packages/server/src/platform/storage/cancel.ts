import { Socket } from 'node:net';
import type pg from 'pg';
import type { StorageLogger } from './engine.js';

/** CancelRequest's code in the PostgreSQL protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80_877_102;
const CANCEL_TIMEOUT_MS = 5_000;

interface ClientKeys {
  processID?: number | null;
  secretKey?: number | null;
  host?: string;
  port?: number;
}

/**
 * Interrupts the statement a pg client is running with a protocol-level CancelRequest (what psql's Ctrl-C
 * sends), on a new connection to the same host and port: no login and no pooled connection needed. It works
 * the same through a transaction-mode pooler, which forwards it to the server session the client is on, where
 * `pg_cancel_backend(pid)` would get the pooler's made-up pid. Resolves once the request was delivered (or
 * could not be: then the statement_timeout the guard sets still ends the statement).
 */
export function cancelRequest(client: pg.ClientBase, logger?: StorageLogger): Promise<void> {
  const { processID, secretKey, host, port } = client as unknown as ClientKeys;
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return Promise.resolve();
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, CANCEL_TIMEOUT_MS);
    timer.unref();
    socket.once('error', (error) => {
      logger?.warn({ err: { message: error.message } }, 'could not send a cancel request');
      done();
    });
    // The server (or pooler) closes the connection once it has handled the request. Not half-closing it
    // first matters: PgBouncer 1.18 exits (FATAL "bad client state") when the cancelling client ends its side
    // while the request is being forwarded, taking every pooled connection with it.
    socket.once('close', done);
    socket.once('end', done);
    socket.once('connect', () => socket.write(message));
    const target = host ?? 'localhost';
    if (target.startsWith('/')) socket.connect(`${target}/.s.PGSQL.${port ?? 5432}`);
    else socket.connect(port ?? 5432, target);
  });
}
