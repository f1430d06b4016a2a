import { strFromU8, unzipSync } from 'fflate';

export interface DownloadOptions {
  /** Attempts in all (first try plus retries). */
  attempts: number;
  /** First retry delay; doubled each time, with jitter. */
  backoffMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
  onRetry?: (info: { url: string; attempt: number; delayMs: number; reason: string }) => void;
}

export type DownloadResult = { ok: true; text: string } | { ok: false; reason: string };

/** A downloaded file may not exceed this (the full ECB history is about 0.6 MB zipped, 2 MB unzipped). */
export const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

class Permanent extends Error {}

async function readCapped(response: Response): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOWNLOAD_BYTES)
    throw new Permanent(`the file is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_DOWNLOAD_BYTES) throw new Permanent(`the file is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
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
    throw new Permanent(`not a readable zip file (${(error as Error).message})`);
  }
  const csv = Object.values(files)[0];
  if (!csv) throw new Permanent('the zip file holds no .csv file');
  return strFromU8(csv);
}

/**
 * GETs one file with retries and exponential backoff on network errors, timeouts, 429 and 5xx; other
 * statuses and oversized or unreadable files fail at once. Never throws: failure is a reason.
 */
export async function download(url: string, options: DownloadOptions): Promise<DownloadResult> {
  let reason = 'not attempted';
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    if (options.signal?.aborted) return { ok: false, reason: 'stopped' };
    try {
      const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
      const response = await fetch(url, {
        signal: AbortSignal.any(signals),
        headers: { 'user-agent': 'expense-server fx worker' },
      });
      if (response.ok) {
        const bytes = await readCapped(response);
        const text = url.toLowerCase().endsWith('.zip') ? csvFromZip(bytes) : new TextDecoder().decode(bytes);
        return { ok: true, text };
      }
      await response.body?.cancel();
      reason = `HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500) return { ok: false, reason };
    } catch (error) {
      if (error instanceof Permanent) return { ok: false, reason: error.message };
      if (options.signal?.aborted) return { ok: false, reason: 'stopped' };
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      reason = cause?.code ?? cause?.message ?? (error as Error).message;
    }
    if (attempt < options.attempts) {
      const delayMs = Math.round(options.backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
      options.onRetry?.({ url, attempt, delayMs, reason });
      await sleep(delayMs, options.signal);
    }
  }
  return { ok: false, reason };
}
