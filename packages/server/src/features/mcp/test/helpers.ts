import { resolve } from 'node:path';
import { parseErrorText, type ToolError } from '@expense/mcp';
import { BUILD_CLI, suiteNeedsBuild } from '@expense/test-kit';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { FastifyInstance } from 'fastify';
import type { Live } from '../../sql/test/setup.js';

export const CLI_BIN = resolve(import.meta.dirname, '../../../../../cli/dist/bin.js');
/** Whether a suite that runs the built CLI runs: skipped with the reason without it, failed under CI. */
export const cliBuilt = (suite: string): boolean => suiteNeedsBuild(suite, CLI_BIN, BUILD_CLI);

// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON the tests assert on field by field
export type Json = any;

export type Era = 'legacy' | 'modern';

/** Answers elicitation requests (the user's yes or no); given, the client declares the capability. */
export type Elicit = (message: string) => { action: 'accept' | 'decline'; content?: { commit: boolean } };
let elicitFor: Elicit | undefined;
/** The next client created answers elicitation with `answer`. */
export const withElicitation = (answer: Elicit | undefined) => {
  elicitFor = answer;
};

function newClient(era: Era): Client {
  const answer = elicitFor;
  elicitFor = undefined;
  const client = new Client(
    { name: 'expense-tests', version: '1.0.0' },
    {
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) =>
      answer(String((request.params as { message?: string }).message)),
    );
  }
  return client;
}

/** A fetch that answers from the app in-process (`app.inject`), no socket. */
export function injectFetch(app: FastifyInstance): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const res = await app.inject({
      method: request.method as 'POST',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(body ? { payload: body } : {}),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    }
    return new Response(res.statusCode === 204 || res.statusCode === 202 ? null : res.rawPayload, {
      status: res.statusCode,
      headers: out,
    });
  }) as typeof fetch;
}

export type Transport = 'socket' | 'inject';

/** An SDK client connected to the server's /mcp with an ApiKey, over a real socket or in-process. */
export async function httpClient(
  live: Live,
  apiKey: string,
  via: Transport,
  era: Era = 'legacy',
): Promise<Client> {
  const client = newClient(era);
  const transport = new StreamableHTTPClientTransport(new URL(`${live.origin}/mcp`), {
    requestInit: { headers: { authorization: `ApiKey ${apiKey}` } },
    ...(via === 'inject' ? { fetch: injectFetch(live.app) } : {}),
  });
  await client.connect(transport);
  return client;
}

/** The BUILT CLI's `expense mcp` as a child process, driven over stdio by the SDK client. */
export async function stdioClient(
  apiUrl: string,
  apiKey: string,
  args: string[] = [],
  era: Era = 'legacy',
): Promise<{ client: Client; stderr: () => string }> {
  const client = newClient(era);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', ...args],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: '/nonexistent',
      XDG_CONFIG_HOME: '/nonexistent/config',
      EXPENSE_API_URL: apiUrl,
      EXPENSE_API_KEY: apiKey,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Calls a tool and returns its result as JSON. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  return (await client.callTool({ name, arguments: args })) as Json;
}

export const textOf = (result: Json): string =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

/**
 * The error of a tool error result, as clients read it: no structuredContent (clients validate it against the
 * output schema even with isError), the fenced JSON of the text content.
 */
export function errorOf(result: Json): ToolError {
  if (result.isError !== true) throw new Error(`not a tool error: ${textOf(result).slice(0, 300)}`);
  if (result.structuredContent !== undefined) throw new Error('a tool error carries structuredContent');
  const parsed = parseErrorText(textOf(result));
  if (!parsed) throw new Error(`no fenced error JSON in: ${textOf(result).slice(0, 300)}`);
  return parsed;
}

/** Approximate tokens as ceil(characters / 4) of the JSON (docs/mcp.md). */
export const approxTokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);
