import { problemWords, type RowProblem } from '@expense/import';
import { CliError } from '../errors.js';
import { ApiError } from '../http/api-error.js';
import { errorOffset } from '../sql/error-position.js';
import { pointAt } from '../sql/pointer.js';
import { cliHint, cliMessage } from './cli-words.js';
import type { Colours } from './colour.js';

export interface ErrorView {
  code: string;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
  status?: number;
  requestId?: string;
}

/** The error as --json shows it: `{ "error": { code, message, hint, details, status } }`. */
export function errorView(error: unknown): ErrorView {
  if (error instanceof ApiError) {
    return {
      ...error.error,
      status: error.status,
      ...(error.requestId ? { requestId: error.requestId } : {}),
    };
  }
  if (error instanceof CliError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.details ? { details: error.details } : {}),
    };
  }
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The human form: what happened and its code, the SQL line with a caret under the position for SQL errors,
 * the SQLSTATE and constraint where the database gave them, and the hint.
 */
export function renderError(error: unknown, colours: Colours, sql?: string): string {
  const view = errorView(error);
  const message = cliMessage(error) ?? view.message;
  const lines = [`${colours.red('error:')} ${message} ${colours.dim(`(${view.code})`)}`];
  const details = view.details ?? {};
  if (sql !== undefined) {
    const offset = errorOffset(sql, details);
    if (offset !== undefined) lines.push(...pointAt(sql, offset).map((l) => `  ${l}`));
  }
  const facts = ['sqlstate', 'constraint', 'column']
    .filter((k) => typeof details[k] === 'string' || typeof details[k] === 'number')
    .map((k) => `${k} ${details[k]}`);
  if (facts.length) lines.push(colours.dim(`  ${facts.join(', ')}`));
  const hint = cliHint(error);
  if (hint) lines.push(`${colours.yellow('hint:')} ${hint}`);
  if (error instanceof CliError && Array.isArray(error.details?.problems)) {
    for (const p of error.details.problems as RowProblem[]) {
      lines.push(`  line ${p.line}${p.field ? `, ${p.field}` : ''}: ${problemWords(p, 'cli')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
