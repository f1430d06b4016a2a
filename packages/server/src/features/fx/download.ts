import { strFromU8, unzipSync } from 'fflate';
import pRetry, { AbortError } from 'p-retry';

export interface DownloadOptions {
  /** Attempts in all (first try plus retries). */
  attempts: number;
  /** First retry delay; doubled each time, times a random 1 to 2 (p-retry's jitter). */
  backoffMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
  onRetry?: (info: { url: string; attempt: number; reason: string }) => void;
}

export type DownloadResult = { ok: true; text: string } | { ok: false; reason: string };

/** A downloaded file may not exceed this (the full ECB history is about 0.6 MB zipped, 2 MB unzipped). */
export const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

async function readCapped(response: Response): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOWNLOAD_BYTES)
    throw new AbortError(`the file is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_DOWNLOAD_BYTES)
      throw new AbortError(`the file is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The .csv inside an ECB zip (eurofxref-hist.zip holds eurofxref-hist.csv). */
export function csvFromZip(bytes: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => f.name.toLowerCase().endsWith('.csv') && f.originalSize <= MAX_DOWNLOAD_BYTES,
    });
  } catch (error) {
    throw new AbortError(`not a readable zip file (${(error as Error).message})`);
  }
  const csv = Object.values(files)[0];
  if (!csv) throw new AbortError('the zip file holds no .csv file');
  return strFromU8(csv);
}

/**
 * GETs one file with retries and exponential backoff (p-retry) on network errors, timeouts, 429 and 5xx; other
 * statuses and oversized or unreadable files fail at once (AbortError). Never throws: failure is a reason.
 */
export async function download(url: string, options: DownloadOptions): Promise<DownloadResult> {
  try {
    const text = await pRetry(() => fetchOnce(url, options), {
      retries: options.attempts - 1,
      minTimeout: options.backoffMs,
      factor: 2,
      randomize: true,
      signal: options.signal,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0) options.onRetry?.({ url, attempt: attemptNumber, reason: error.message });
      },
    });
    return { ok: true, text };
  } catch (error) {
    return { ok: false, reason: options.signal?.aborted ? 'stopped' : (error as Error).message };
  }
}

/** One GET; throws an Error worth retrying, or an AbortError that is final. */
async function fetchOnce(url: string, options: DownloadOptions): Promise<string> {
  let response: Response;
  try {
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    response = await fetch(url, {
      signal: AbortSignal.any(signals),
      headers: { 'user-agent': 'expense-server fx worker' },
    });
    if (response.ok) {
      const bytes = await readCapped(response);
      return url.toLowerCase().endsWith('.zip') ? csvFromZip(bytes) : new TextDecoder().decode(bytes);
    }
    await response.body?.cancel();
  } catch (error) {
    if (error instanceof AbortError) throw error;
    if (options.signal?.aborted) throw new AbortError('stopped');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    // A plain Error, so p-retry retries whatever fetch threw (TypeError, a timeout's DOMException).
    throw new Error(cause?.code ?? cause?.message ?? (error as Error).message);
  }
  const reason = `HTTP ${response.status}`;
  throw response.status === 429 || response.status >= 500 ? new Error(reason) : new AbortError(reason);
}
