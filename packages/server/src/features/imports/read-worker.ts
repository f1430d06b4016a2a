/**
 * The script of the import read pool's worker threads (read-pool.ts): reads one bank file at a time with
 * @expense/import's prepareImport (decode, recognise, validate every row), the CPU-heavy part of POST /v1/imports,
 * so that the server's event loop answers other requests meanwhile. It never asks: what a person would be asked is
 * refused. The pool calls the default export with each file.
 */
import { parentPort } from 'node:worker_threads';
import { ExitCode, ImportError, prepareImport } from '@expense/import';
import { DATE_ORDER, type ReadRequest, type ReadResponse, type ReadStarted } from './read-protocol.js';

export default async function read({ id, request, workspaceCurrency }: ReadRequest): Promise<ReadResponse> {
  parentPort?.postMessage({ reading: id } satisfies ReadStarted);
  try {
    const { target: _target, ...prepared } = await prepareImport(request, {
      chooseDateFormat: async (formats, example) => {
        throw new ImportError(
          DATE_ORDER,
          `${request.fileName}: its dates read two ways (${example}: ${formats.join(' or ')}); nothing was imported.`,
          ExitCode.usage,
        );
      },
      workspaceCurrency: async () => workspaceCurrency,
    });
    return { prepared };
  } catch (error) {
    if (!(error instanceof ImportError))
      return { failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    return {
      refusal: {
        code: error.code,
        message: error.message,
        exitCode: error.exitCode,
        hint: error.hint,
        details: error.details,
        situation: error.situation,
      },
    };
  }
}
