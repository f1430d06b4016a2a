// The MCP SDK client's own OAuth support (an OAuthClientProvider given to its Streamable HTTP transport)
// against this server: it discovers the metadata from the 401 challenge, registers, sends the user to the
// authorization URL (here: the consent form, driven as a browser would), exchanges the code, calls a tool,
// and refreshes an expired access token by itself.
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { consentInBrowser, consoleCookie, REDIRECT_URI } from './helpers.js';

type Provider = OAuthClientProvider & {
  authorizationUrl?: URL;
  saved: { tokens?: Parameters<OAuthClientProvider['saveTokens']>[0] };
};

function memoryProvider(): Provider {
  let client: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  let verifier = '';
  const provider: Provider = {
    saved: {},
    get redirectUrl() {
      return REDIRECT_URI;
    },
    get clientMetadata() {
      return {
        client_name: 'SDK client',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'openid expense:read expense:write',
      };
    },
    clientInformation: () => client,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => provider.saved.tokens,
    saveTokens: (tokens) => {
      provider.saved.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      provider.authorizationUrl = url;
    },
    saveCodeVerifier: (v) => {
      verifier = v;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

describe.each(ENGINES)('the MCP SDK OAuth client on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let cookie: string;

  beforeAll(async () => {
    live = await startLive(engine);
    user = await createUser(live.db);
    await addWorkspace(live.db, user.userId, 'Home');
    cookie = await consoleCookie(live.db, user.userId, live.origin);
  });
  afterAll(async () => live?.close());

  it('authorizes, calls a tool, and refreshes by itself', async () => {
    const provider = memoryProvider();
    const url = new URL(`${live.origin}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(live.origin);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${live.origin}/mcp`);

    const back = await consentInBrowser(live.origin, String(provider.authorizationUrl), cookie);
    await first.finishAuth(back.searchParams);
    expect(provider.saved.tokens?.access_token).toBeTruthy();

    const connected = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const result = (await connected.callTool({ name: 'list_workspaces', arguments: {} })) as {
      structuredContent: { workspaces: { name: string }[] };
    };
    expect(result.structuredContent.workspaces.map((w) => w.name)).toEqual(['Home']);
    await connected.close();

    // The access token stops working (here: the client holds one the server no longer knows): on the 401 the
    // SDK refreshes with its refresh token, which the server rotates.
    const before = provider.saved.tokens;
    if (!before) throw new Error('no tokens');
    provider.saved.tokens = { ...before, access_token: `exp_live_${'Z'.repeat(43)}` };
    const again = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const second = (await again.callTool({ name: 'list_workspaces', arguments: {} })) as {
      structuredContent: { workspaces: unknown[] };
    };
    expect(second.structuredContent.workspaces).toHaveLength(1);
    expect(provider.saved.tokens?.refresh_token).toBeTruthy();
    expect(provider.saved.tokens?.refresh_token).not.toBe(before?.refresh_token);
    await again.close();
  });
});
