/**
 * A worker thread of the import read pool (read-pool.ts): reads one bank file at a time with @expense/import's
 * prepareImport (decode, recognise, validate every row), the CPU-heavy part of POST /v1/imports, so that the
 * server's event loop answers other requests meanwhile. It never asks: what a person would be asked is refused.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import { ExitCode, ImportError, prepareImport } from '@expense/import';
import { DATE_ORDER, type ReadRequest, type ReadResponse } from './read-protocol.js';

if (!parentPort) throw new Error('read-worker must run in a worker thread (it is started by the read pool)');
const port: MessagePort = parentPort;

port.on('message', ({ id, request, workspaceCurrency }: ReadRequest) => {
  prepareImport(request, {
    chooseDateFormat: async (formats, example) => {
      throw new ImportError(
        DATE_ORDER,
        `${request.fileName}: its dates read two ways (${example}: ${formats.join(' or ')}); nothing was imported.`,
        ExitCode.usage,
      );
    },
    workspaceCurrency: async () => workspaceCurrency,
  }).then(
    ({ target: _target, ...prepared }) => send({ id, prepared }),
    (error: unknown) =>
      send(
        error instanceof ImportError
          ? {
              id,
              refusal: {
                code: error.code,
                message: error.message,
                exitCode: error.exitCode,
                hint: error.hint,
                details: error.details,
              },
            }
          : { id, failure: failureOf(error) },
      ),
  );
});

const failureOf = (error: unknown) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

/** An answer that cannot be cloned (it never should) is a failure of its job, not of the thread. */
function send(response: ReadResponse & { id: number }): void {
  try {
    port.postMessage(response);
  } catch (error) {
    port.postMessage({ id: response.id, failure: failureOf(error) } satisfies ReadResponse);
  }
}
port.postMessage({ ready: true } satisfies ReadResponse);
