import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { usageError } from '../errors.js';
import { fileNotReadable } from '../output/file-error.js';
import { readAll } from '../prompt/prompt.js';
import type { Action } from './action.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

interface ApiOptions {
  data?: string;
  input?: string;
}

/** `/me`, `me`, `/v1/me` → `/me` (the base URL already ends in /v1). */
export function apiPath(path: string): string {
  const p = path.startsWith('/') ? path : `/${path}`;
  return p.replace(/^\/v1(?=\/|$)/, '') || '/';
}

export function registerApi(program: Command, action: Action): void {
  program
    .command('api')
    .argument('<method>', METHODS.join(', '))
    .argument('<path>', 'a path under the API URL, e.g. /me or /workspaces')
    .option('-d, --data <json>', 'the JSON request body')
    .option('--input <file>', 'read the JSON body from a file (- for stdin)')
    .description(
      "Call the API directly with the stored key (and the workspace header); prints the response's data",
    )
    .addHelpText(
      'after',
      `
Examples:
  expense api GET /me
  expense api POST /sql/query -d '{"sql": "SELECT count(*) FROM ledger_entries"}'
  expense api DELETE /keys/<connectionId>

The response's data goes to stdout as JSON; an error is shown like any command's (--json: {"error": ...}).`,
    )
    .action(
      action(async (ctx, options: ApiOptions, [rawMethod, rawPath]) => {
        const method = rawMethod!.toUpperCase() as Method;
        if (!METHODS.includes(method))
          throw usageError(
            `"${rawMethod}" is not an HTTP method the API uses.`,
            `Use one of ${METHODS.join(', ')}.`,
          );
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
      }),
    );
}
