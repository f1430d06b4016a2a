import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../../context.js';
import { openStore } from '../../credentials/select.js';
import { cliError, usageError } from '../../errors.js';
import { ApiError } from '../../http/api-error.js';
import { ask } from '../../prompt/prompt.js';
import { resolveWorkspace } from '../workspaces/command.js';

/*
 * A workspace's data leaving and coming back, and deletions (issue 40): `expense export`, `expense restore`,
 * `expense workspaces delete`, `expense account delete`. The export is streamed to the file or stdout as it
 * arrives (the server writes it as it reads); the CLI writes no CSV of its own (the zip's CSVs are the server's).
 */

interface Target {
  apiUrl: string;
  apiKey: string;
}

async function target(ctx: Context): Promise<Target> {
  const { apiKey } = await ctx.key();
  return { apiUrl: await ctx.apiUrl(), apiKey };
}

/** The workspace a command acts on: the argument, else --workspace / the profile's, else the server's saved one. */
async function workspaceOf(
  ctx: Context,
  ref: string | undefined,
): Promise<{ workspaceId: string; name: string }> {
  if (ref) return resolveWorkspace(ctx, ref);
  const local = await ctx.workspaceId();
  const all = (await (await ctx.api()).workspaces()).data.workspaces;
  const chosen = local
    ? all.find((w) => w.workspaceId === local)
    : (all.find((w) => w.selected) ?? (all.length === 1 ? all[0] : undefined));
  if (!chosen) throw cliError('missing_workspace');
  return chosen;
}

/** A failure answer as the CLI's ApiError (the envelope), or an unexpected-response error. */
async function failure(res: Response): Promise<never> {
  const text = await res.text();
  let body: { error?: { code: string; message: string; hint?: string }; actions?: [] } | undefined;
  try {
    body = JSON.parse(text);
  } catch {}
  if (!body?.error)
    throw cliError('unexpected_response', {
      message: `The server answered ${res.status} without the error envelope.`,
    });
  const retryAfter = Number(res.headers.get('retry-after'));
  throw new ApiError(
    res.status,
    body.error,
    body.actions ?? [],
    res.headers.get('x-request-id') ?? undefined,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Reads the typed confirmation on a terminal; without one, takes --confirm (never skipped by --yes). */
async function typed(
  ctx: Context,
  what: string,
  expected: string,
  given: string | undefined,
  same: (a: string, b: string) => boolean,
): Promise<string> {
  if (given !== undefined) {
    if (!same(given, expected)) throw usageError(`--confirm is not the ${what}; nothing was deleted.`);
    return given;
  }
  if (!ctx.interactive) {
    throw cliError('approval_required', {
      hint: `Give --confirm with the ${what} exactly, or run it on a terminal to type it; the deletion is final.`,
    });
  }
  const answer = (await ask(ctx.io, `Type the ${what} (${expected}) to confirm: `)).trim();
  if (!same(answer, expected))
    throw cliError('approval_declined', { message: `That is not the ${what}; nothing was deleted.` });
  return answer;
}

export async function exportWorkspace(
  ctx: Context,
  options: { format: string; output?: string },
): Promise<void> {
  if (options.format !== 'json' && options.format !== 'csv') throw usageError('--format is json or csv.');
  if (!options.output && options.format === 'csv' && ctx.io.stdout.isTTY) {
    throw usageError('A zip is not for a terminal: give -o <file>, or redirect stdout.');
  }
  const workspace = await workspaceOf(ctx, undefined);
  const { apiUrl, apiKey } = await target(ctx);
  const res = await fetch(
    `${apiUrl}/workspaces/${encodeURIComponent(workspace.workspaceId)}/export?format=${options.format}`,
    {
      headers: { authorization: `ApiKey ${apiKey}` },
    },
  );
  if (!res.ok || !res.body) return failure(res);
  let bytes = 0;
  let shownAt = 0;
  const progress = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (ctx.io.stderr.isTTY && Date.now() - shownAt > 200) {
        shownAt = Date.now();
        ctx.io.stderr.write(`\rExporting ${workspace.name}: ${megabytes(bytes)}`);
      }
      done(null, chunk);
    },
  });
  const out = options.output ? createWriteStream(options.output) : ctx.io.stdout;
  await pipeline(Readable.fromWeb(res.body as never), progress, out, { end: Boolean(options.output) });
  if (ctx.io.stderr.isTTY) ctx.io.stderr.write('\r');
  ctx.note(
    `${ctx.err.green('✓')} Exported ${ctx.err.bold(workspace.name)} (${megabytes(bytes)})${options.output ? ` to ${options.output}` : ''}.`,
  );
}

export async function restoreWorkspace(
  ctx: Context,
  options: { replace?: boolean },
  file: string,
): Promise<void> {
  const workspace = await workspaceOf(ctx, undefined);
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch (error) {
    throw cliError('file_not_readable', { message: `${file}: ${(error as Error).message}` });
  }
  const { apiUrl, apiKey } = await target(ctx);
  const res = await fetch(
    `${apiUrl}/workspaces/${encodeURIComponent(workspace.workspaceId)}/restore${options.replace ? '?replace=true' : ''}`,
    {
      method: 'POST',
      headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
      body,
    },
  );
  if (!res.ok) return failure(res);
  const envelope = (await res.json()) as {
    data: { changeId: string | null; shortId?: string; restored: Record<string, number>; newIds: number };
  };
  if (ctx.json) return ctx.printJson(envelope.data);
  const counts = Object.entries(envelope.data.restored)
    .map(([relation, n]) => `${n} ${relation}`)
    .join(', ');
  ctx.note(`${ctx.err.green('✓')} Restored into ${ctx.err.bold(workspace.name)}: ${counts}.`);
  if (envelope.data.changeId) {
    // The server's short id is unique in the workspace, replayed history included; without one, the whole id (its
    // first digits are shared with the history the restore replays: UUIDv7 of the same minutes).
    const id = envelope.data.shortId ?? envelope.data.changeId;
    ctx.note(`One change: ${id} (\`expense revert ${id}\` undoes it).`);
  }
}

export async function deleteWorkspace(
  ctx: Context,
  options: { confirm?: string },
  ref: string,
): Promise<void> {
  const workspace = await resolveWorkspace(ctx, ref);
  ctx.note(
    `Deleting ${ctx.err.bold(workspace.name)} deletes all its data and history for good: there is no undo. Export it first to keep a copy (\`expense export -o file --workspace ${workspace.workspaceId}\`).`,
  );
  const name = await typed(ctx, "workspace's name", workspace.name, options.confirm, (a, b) => a === b);
  await (await ctx.api()).deleteWorkspace(workspace.workspaceId, name);
  if ((await ctx.workspaceId()) === workspace.workspaceId)
    await ctx.updateProfile({ workspaceId: undefined });
  if (ctx.json) return ctx.printJson({ deleted: { workspaceId: workspace.workspaceId } });
  ctx.note(`${ctx.err.green('✓')} Deleted workspace ${ctx.err.bold(workspace.name)}, for good.`);
}

export async function deleteAccount(ctx: Context, options: { confirm?: string }): Promise<void> {
  const api = await ctx.api();
  const email = (await api.me()).data.user.email;
  ctx.note(
    'Deleting your account deletes every key, session, invitation and OAuth grant, and every workspace you alone own, with its data and history, for good: there is no undo. Workspaces with another owner stay.',
  );
  const confirmEmail = await typed(
    ctx,
    'e-mail address',
    email,
    options.confirm,
    (a, b) => a.trim().toLowerCase() === b.toLowerCase(),
  );
  await api.deleteAccount(confirmEmail);
  // The key died with the account: remove the stored copy as logout does.
  const { source } = await ctx.key();
  if (source !== 'env') {
    await openStore(source, ctx.io.env).delete(await ctx.account());
    await ctx.updateProfile({ credentialStore: undefined, workspaceId: undefined });
  }
  if (ctx.json) return ctx.printJson({ deleted: { email } });
  ctx.note(`${ctx.err.green('✓')} Deleted the account ${email}, for good.`);
}
