import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/storage/database.js';
import { fetchMetadataDocument, isMetadataClientId, type MetadataFetchOptions } from './client-metadata.js';
import { parseRegistration } from './registration.js';
import { findClient, type OAuthClient, saveClient } from './store.js';

/** A fetched client metadata document is trusted this long before it is read again. */
const METADATA_CACHE_MS = 60 * 60_000;

/**
 * Finds clients: a registered one, or a client whose id is the URL of its metadata document
 * (draft-ietf-oauth-client-id-metadata-document), fetched (again) when the stored copy is old.
 */
export function clientFinder(
  db: Database,
  fetchOptions: MetadataFetchOptions,
  log: FastifyBaseLogger,
): (clientId: string) => Promise<OAuthClient | undefined> {
  return async (clientId) => {
    const stored = await findClient(db, clientId);
    if (!isMetadataClientId(clientId)) return stored?.metadataDocument ? undefined : stored;
    if (stored?.fetchedAt && Date.now() - stored.fetchedAt.getTime() < METADATA_CACHE_MS) return stored;
    let document: unknown;
    try {
      document = await fetchMetadataDocument(clientId, fetchOptions);
    } catch (error) {
      log.info({ err: error, clientId }, 'oauth: client metadata document not fetched');
      return undefined;
    }
    let parsed: ReturnType<typeof parseRegistration>;
    try {
      parsed = parseRegistration(document);
    } catch {
      return undefined;
    }
    // The document must name itself (draft-ietf-oauth-client-id-metadata-document §4.1).
    if ((document as { client_id?: unknown }).client_id !== clientId || parsed.authMethod !== 'none') {
      return undefined;
    }
    const client: OAuthClient = {
      clientId,
      clientName: parsed.clientName ?? new URL(clientId).host,
      redirectUris: parsed.redirectUris,
      authMethod: 'none',
      secretHash: null,
      metadataDocument: true,
      fetchedAt: new Date(),
    };
    await saveClient(db, client);
    return client;
  };
}
