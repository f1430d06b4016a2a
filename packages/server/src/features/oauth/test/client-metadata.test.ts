// Client ID metadata documents: a client_id that is an https URL whose JSON names the client's redirect
// URIs. Served here by a local HTTPS server (a throwaway certificate from openssl); the server under test may
// fetch from loopback only through its explicit test option, and refuses private addresses otherwise.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { join } from 'node:path';
import { removeDir, routePath, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Live, PGLITE, request, startLive } from '../../sql/test/setup.js';
import { fetchMetadataDocument } from '../client-metadata.js';
import { consentInBrowser, consoleCookie, pkce, REDIRECT_URI, tokenRequest } from './helpers.js';

const ENGINE = PGLITE;

describe('client ID metadata documents', () => {
  let dir: string;
  let ca: string;
  let https: Server;
  let docsOrigin: string;
  let live: Live;
  const documents = new Map<string, string>();

  beforeAll(async () => {
    dir = await tempDir();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
    https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
      const body = documents.get(req.url ?? '');
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const address = https.address();
    docsOrigin = `https://localhost:${typeof address === 'object' && address ? address.port : 0}`;
    live = await startLive(ENGINE);
  });
  afterAll(async () => {
    await live?.close();
    await new Promise((resolve) => https?.close(resolve));
    await removeDir(dir);
  });

  const doc = (path: string, body: unknown) => {
    documents.set(path, typeof body === 'string' ? body : JSON.stringify(body));
    return `${docsOrigin}${path}`;
  };

  it('refuses loopback and private addresses unless the test option allows them', async () => {
    const url = doc('/private.json', { client_id: 'x', redirect_uris: [REDIRECT_URI] });
    await expect(fetchMetadataDocument(url, { allowPrivateAddresses: false, ca })).rejects.toThrow(
      /private address/,
    );
    await expect(fetchMetadataDocument(url, { allowPrivateAddresses: true, ca })).resolves.toMatchObject({
      client_id: 'x',
    });
  });

  it('refuses a document larger than its bound', async () => {
    const url = doc('/large.json', JSON.stringify({ client_id: 'x', padding: 'p'.repeat(20_000) }));
    await expect(fetchMetadataDocument(url, { allowPrivateAddresses: true, ca })).rejects.toThrow(
      /too large/,
    );
  });

  it('authorizes a client known only by its metadata document URL', async () => {
    const { createServer } = await import('../../../index.js');
    const app = await createServer(
      { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000 },
      { database: live.db, oauthClientMetadata: { allowPrivateAddresses: true, ca } },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const clientId = `${docsOrigin}/clients/agent.json`;
      doc('/clients/agent.json', {
        client_id: clientId,
        client_name: 'Document agent',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      });
      const user = await createUser(live.db);
      const cookie = await consoleCookie(live.db, user.userId, live.origin);
      const { verifier, challenge } = pkce();
      const authorize = `${origin}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`;
      const back = await consentInBrowser(origin, authorize, cookie);
      const t = await tokenRequest(origin, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        code_verifier: verifier,
        client_id: clientId,
      });
      expect(t.status).toBe(200);
      const keys = await request(origin, 'GET', routePath(API_ROUTES.keys), { key: user.apiKey });
      const oauth = keys.body.data.keys.find((k: { kind: string }) => k.kind === 'oauth');
      expect(oauth.client).toEqual({ clientId, name: 'Document agent' });

      // A redirect URI the document does not name is refused, without redirecting there.
      const evil = await fetch(
        authorize.replace(encodeURIComponent(REDIRECT_URI), encodeURIComponent('https://evil.example/cb')),
        {
          redirect: 'manual',
        },
      );
      expect(evil.status).toBe(400);
      expect(evil.headers.get('location')).toBeNull();
    } finally {
      await app.close();
    }
    // The default server (no test option) cannot fetch a document on loopback, which is private.
    doc('/clients/other.json', {
      client_id: `${docsOrigin}/clients/other.json`,
      client_name: 'Other',
      redirect_uris: [REDIRECT_URI],
    });
    const refused = await fetch(
      `${live.origin}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: `${docsOrigin}/clients/other.json`,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );
    expect(refused.status).toBe(400);
  });
});
