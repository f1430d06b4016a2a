import { lookup } from 'node:dns';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../../platform/ratelimit/client-address.js';

/** Documents larger than this are refused (the MCP spec's client ID metadata documents are small JSON). */
export const MAX_METADATA_BYTES = 16 * 1024;
export const METADATA_TIMEOUT_MS = 5_000;

export interface MetadataFetchOptions {
  /** Tests only: allow loopback and private addresses (a local HTTPS server). */
  allowPrivateAddresses: boolean;
  /** Tests only: the certificate authority of that server. */
  ca?: string;
}

/** A client_id that names a metadata document: https, a path, no credentials or fragment. */
export function isMetadataClientId(clientId: string): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.pathname !== '/' && !url.username && !url.password && !url.hash;
}

export class MetadataFetchError extends Error {
  override name = 'MetadataFetchError';
}

/**
 * GETs a client ID metadata document: https only, no redirects, at most MAX_METADATA_BYTES within
 * METADATA_TIMEOUT_MS, and (unless allowed for tests) only from public addresses — checked on the address the
 * connection really uses, so a DNS answer that changes between check and connect cannot reach inside.
 */
export function fetchMetadataDocument(url: string, options: MetadataFetchOptions): Promise<unknown> {
  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as { address: string; family: number }[];
      const refused = !options.allowPrivateAddresses && list.some((a) => isPrivateAddress(a.address));
      if (refused || list.length === 0) {
        return callback(new MetadataFetchError(`${hostname} resolves to a private address`), '', 0);
      }
      if ((lookupOptions as { all?: boolean }).all) return callback(null, list as never, 0);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    if (isIP(target.hostname.replace(/^\[|\]$/g, '')) && !options.allowPrivateAddresses) {
      if (isPrivateAddress(target.hostname.replace(/^\[|\]$/g, ''))) {
        reject(new MetadataFetchError('the client_id names a private address'));
        return;
      }
    }
    const req = httpsRequest(
      target,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: checkedLookup,
        timeout: METADATA_TIMEOUT_MS,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new MetadataFetchError(`the metadata document answered ${res.statusCode}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_METADATA_BYTES) {
            req.destroy(new MetadataFetchError('the metadata document is too large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new MetadataFetchError('the metadata document is not JSON'));
          }
        });
        res.on('error', reject);
      },
    );
    // Bounds the whole exchange, not only idle time.
    const deadline = setTimeout(
      () => req.destroy(new MetadataFetchError('the metadata document took too long')),
      METADATA_TIMEOUT_MS,
    );
    req.on('timeout', () => req.destroy(new MetadataFetchError('the metadata document took too long')));
    req.on('error', (error) =>
      reject(error instanceof MetadataFetchError ? error : new MetadataFetchError(error.message)),
    );
    req.on('close', () => clearTimeout(deadline));
    req.end();
  });
}
