/**
 * The worker thread of PGliteWorkerHost: one PGlite database, answering the host's requests one at a time.
 * The host terminates this thread to interrupt a statement (WebAssembly cannot be cancelled otherwise).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import {
  type PGliteWorkerData,
  rawParsers,
  serializeError,
  toSessionResult,
  type WorkerRequest,
  type WorkerResponse,
} from './pglite-protocol.js';
import { simpleQueryMessage } from './pglite-wire.js';

if (!parentPort) {
  throw new Error('pglite-worker-thread must run in a worker thread (it is started by PGliteWorkerHost)');
}
const port: MessagePort = parentPort;
const send = (message: WorkerResponse) => port.postMessage(message);

const { dataDir, settings, wasm } = workerData as PGliteWorkerData;
// PGlite's own start parameters, then each setting as `-c name=value` (the command line, so nothing is written
// into the data directory's postgresql.conf).
const startParams = [
  ...PGlite.defaultStartParams,
  ...Object.entries(settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/**
 * The chunks as one buffer of its own (the one chunk itself when there is one), safe to transfer: Buffer.concat may
 * answer a slice of Node's shared pool.
 */
function joined(chunks: Uint8Array<ArrayBuffer>[]): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const whole = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}

// No top-level await: the script is also built as CommonJS.
async function serve(): Promise<void> {
  try {
    const created = dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'));
    const db = await PGlite.create({
      startParams,
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(wasm ? { pgliteWasmModule: wasm } : {}),
    });
    const options = { parsers: rawParsers(db) };
    let queue = Promise.resolve();
    port.on('message', (request: WorkerRequest) => {
      queue = queue.then(async () => {
        try {
          if (request.op === 'close') {
            await db.close();
            send({ id: request.id, ok: true, results: [] });
            port.close();
            return;
          }
          if (request.op === 'rollback') {
            if (db.isInTransaction()) await db.exec('ROLLBACK');
            send({ id: request.id, ok: true, results: [] });
            return;
          }
          if (request.op === 'dump') {
            // Between requests (this queue runs one at a time), so no statement is half-way; the CHECKPOINT
            // writes every committed page to the files, so the copy needs no WAL replay to be whole.
            if (db.isInTransaction()) throw new Error('A transaction is open: no dump in the middle of it.');
            await db.exec('CHECKPOINT');
            const blob = await db.dumpDataDir('gzip');
            const dump = new Uint8Array(await blob.arrayBuffer());
            port.postMessage({ id: request.id, ok: true, dump } satisfies WorkerResponse, [dump.buffer]);
            return;
          }
          if (request.op === 'exec') {
            // The raw answer, copied out of PGlite's memory as it is written and moved (not cloned) to the main
            // thread. Streamed, because execProtocolRaw also parses every message into objects this thread never
            // reads (and keeps them until the next db.query): a quarter of the embedded server's CPU per request,
            // most of the worker's old space.
            const chunks: Uint8Array<ArrayBuffer>[] = [];
            await db.execProtocolRawStream(simpleQueryMessage(request.text), {
              onRawData: (data) => chunks.push(data.slice()),
            });
            const wire = joined(chunks);
            port.postMessage({ id: request.id, ok: true, wire } satisfies WorkerResponse, [wire.buffer]);
            return;
          }
          const result = await db.query(request.text, request.params ?? [], options);
          send({ id: request.id, ok: true, results: [toSessionResult(result)] });
        } catch (error) {
          send({ id: request.id, ok: false, error: serializeError(error) });
        }
      });
    });
    send({ ready: true, created });
  } catch (error) {
    send({ fatal: serializeError(error) });
  }
}

void serve();
