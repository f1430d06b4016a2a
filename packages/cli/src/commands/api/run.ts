import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { fileNotReadable } from '../../output/file-error.js';
import { readAll } from '../../prompt/prompt.js';
import type { ApiOptions, Method } from './options.js';

/** `/me`, `me`, `/v1/me` → `/me` (the base URL already ends in /v1). */
export function apiPath(path: string): string {
  const p = path.startsWith('/') ? path : `/${path}`;
  return p.replace(/^\/v1(?=\/|$)/, '') || '/';
}

/** `expense api`: any route with the stored key. */
export async function api(ctx: Context, options: ApiOptions, [rawMethod, rawPath]: string[]): Promise<void> {
  const method = rawMethod as Method; // one of METHODS, in upper case: commander checked it
  if (/^https?:\/\//i.test(rawPath!))
    throw usageError('Give the path only (e.g. /me); the URL comes from --api-url or the profile.');
  if (options.data !== undefined && options.input !== undefined)
    throw usageError('Give the body with --data or --input, not both.');
  let text = options.data;
  if (options.input === '-') text = await readAll(ctx.io.stdin);
  else if (options.input !== undefined) {
    try {
      text = await readFile(options.input, 'utf8');
    } catch (error) {
      throw fileNotReadable(options.input, error);
    }
  }
  let body: unknown;
  if (text !== undefined) {
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw usageError(`The body is not JSON: ${(error as Error).message}.`);
    }
  }
  if (body !== undefined && (method === 'GET' || method === 'DELETE'))
    throw usageError(`A ${method} takes no body.`);
  const { apiKey } = await ctx.key();
  const workspaceId = await ctx.workspaceId();
  const result = await ctx.client.call({
    method,
    url: await ctx.url(apiPath(rawPath!)),
    apiKey,
    ...(workspaceId ? { workspaceId } : {}),
    ...(body !== undefined ? { body } : {}),
  });
  if (result.status === 204) {
    if (!ctx.json) ctx.note(`${result.status} No Content`);
    return;
  }
  ctx.printJson(result.raw);
}
