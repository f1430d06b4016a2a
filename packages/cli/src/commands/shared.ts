import { readFile } from 'node:fs/promises';
import type { SqlEndpoint } from '../api/index.js';
import type { Context } from '../context.js';
import { CliError, cliError, usageError } from '../errors.js';
import { ApiError } from '../http/api-error.js';
import type { ChangeGroup } from '../http/client.js';
import { isSqlRejection } from '../http/exit-codes.js';
import { fileNotReadable } from '../output/file-error.js';
import { confirm, readAll } from '../prompt/prompt.js';
import { blankComments, hasComments } from '../sql/statements.js';

/** A SQL rejection, with the SQL it refers to so the message can point into it. */
export class SqlRejected extends CliError {
  constructor(
    override readonly cause: ApiError,
    readonly sql: string,
  ) {
    super(cause.code, cause.message, cause.exitCode, {
      ...(cause.hint ? { hint: cause.hint } : {}),
      ...(cause.details ? { details: cause.details } : {}),
    });
  }
}

export type { SqlEndpoint } from '../api/index.js';

export interface SqlCallOptions {
  dryRun?: boolean;
  idempotencyKey?: string;
  changeGroup?: ChangeGroup;
}

/** Posts SQL to one of the SQL endpoints with the key and the workspace header. */
export async function callSql(
  ctx: Context,
  endpoint: SqlEndpoint,
  sql: string,
  options: SqlCallOptions = {},
) {
  const api = await ctx.api();
  try {
    return await api.sql(endpoint, sql, options);
  } catch (error) {
    if (error instanceof ApiError && isSqlRejection(error.code)) throw new SqlRejected(error, sql);
    throw error;
  }
}

/** SQL from the argument, from `-f file` (`-f -` is stdin), or from a piped stdin. */
export async function sqlFrom(
  ctx: Context,
  arg: string | undefined,
  file: string | undefined,
): Promise<string> {
  if (arg !== undefined && file !== undefined)
    throw usageError('Give the SQL as an argument or with -f, not both.');
  let sql: string;
  if (arg !== undefined) sql = arg;
  else if (file === '-' || (file === undefined && !ctx.io.stdin.isTTY)) sql = await readAll(ctx.io.stdin);
  else if (file !== undefined) {
    try {
      sql = await readFile(file, 'utf8');
    } catch (error) {
      throw fileNotReadable(file, error);
    }
  } else throw usageError('No SQL given.', 'Pass it as an argument, with -f <file>, or on stdin.');
  if (hasComments(sql)) {
    sql = blankComments(sql);
    if (!ctx.json) ctx.note('Comments are not sent (the service accepts none); the rest is sent as written.');
  }
  if (!sql.trim()) throw usageError('The SQL is empty.');
  return sql;
}

/**
 * The approval rule for writes (cli.md): `--yes` approves; otherwise a terminal is asked once, default no;
 * without a terminal (or with --no-input) nothing is sent and the exit code is 3.
 */
export async function approve(ctx: Context, question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!ctx.interactive) {
    throw cliError('approval_required');
  }
  if (!(await confirm(ctx.io, question))) {
    throw cliError('approval_declined');
  }
}

/** The statement as shown before approval, indented, on stderr. */
export function showSql(ctx: Context, heading: string, sql: string): void {
  ctx.note(ctx.err.bold(heading));
  ctx.note(
    sql
      .trim()
      .split('\n')
      .map((l) => `  ${ctx.err.cyan(l)}`)
      .join('\n'),
  );
}

/**
 * The workspace a write goes to, for prompts and messages: its name and id (`workspace "Household"
 * (0b6f…)`), so the question says where in words. The name comes from the workspace list; when that call
 * fails the id alone is shown (the write itself then reports the real problem).
 */
export async function workspaceLabel(ctx: Context): Promise<string> {
  const id = await ctx.workspaceId();
  try {
    const { workspaces } = (await (await ctx.api()).workspaces()).data;
    const match = workspaces.find((w) => (id ? w.workspaceId === id : w.selected));
    if (match) return `workspace "${match.name}" (${match.workspaceId})`;
  } catch {
    // fall through to what is known locally
  }
  return id ? `workspace ${id}` : 'the selected workspace';
}
