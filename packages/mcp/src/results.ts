import { HTTP_ERRORS, MCP_ERRORS, type McpErrorCode, mcpNextStep } from '@expense/wire/error-catalog';
import { ReportInputError } from '@expense/wire/reports';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type ApiErrorObject, McpApiError } from './api.js';
import { errorText } from './render.js';
import { mcpWords } from './words.js';

// Tool errors: what every tool answers when the API refuses, in MCP words.

interface Failure {
  /** The error as the API answers it (HTTP words), or as this layer makes it (`variant`: its situation). */
  error: ApiErrorObject & { variant?: string };
  nextAction: string;
}

/**
 * A tool error: isError, NO structuredContent (clients check it against the output schema whatever isError says),
 * and the text content the error as fenced JSON (errorText). Hints and messages name tools, not HTTP routes.
 */
export function failure(f: Failure): CallToolResult {
  const { code, retryable, details } = f.error;
  const { message, hint } = mcpWords(f.error);
  const error = {
    code,
    message: message ?? f.error.message,
    ...(hint === undefined ? {} : { hint }),
    retryable: retryable ?? false,
    ...(details === undefined ? {} : { details }),
  };
  return { isError: true, content: [{ type: 'text', text: errorText({ error, nextAction: f.nextAction }) }] };
}

export function mcpFailure(code: McpErrorCode, nextAction: string, hint?: string): CallToolResult {
  return failure({
    error: { code, message: MCP_ERRORS[code].message, ...(hint ? { hint } : {}), retryable: false },
    nextAction,
  });
}

/** The SDK's words for arguments the tool's input schema refuses (its `validateToolInput`). */
const REFUSED_ARGUMENTS = /^(?:Input validation error: )?(Invalid arguments for tool .*)$/s;

/**
 * A failure the SDK turns into a tool result itself: arguments the tool's input schema refuses become
 * `invalid_request` with the SDK's account of them; anything else (a handler that threw, which no tool should)
 * becomes the catalogue's `internal_error`, without the thrown text.
 */
export function sdkFailure(message: string): CallToolResult {
  const refused = REFUSED_ARGUMENTS.exec(message);
  const code = refused ? 'invalid_request' : 'internal_error';
  const entry = HTTP_ERRORS[code];
  const error = { code, message: refused?.[1] ?? entry.message, retryable: entry.retryable };
  return failure({ error, nextAction: mcpNextStep(error, entry.status) });
}

/** The next legal step after an API error, in words an agent can act on (the error catalogue's). */
export function nextActionFor(e: McpApiError, variant?: string): string {
  return mcpNextStep(e.error, e.status, variant);
}

/** A commit (a revert, an import) was sent and its answer never came: the catalogue's mutation_outcome_unknown. */
export function outcomeUnknown(message: string, variant?: 'revert' | 'import'): CallToolResult {
  const entry = HTTP_ERRORS.mutation_outcome_unknown;
  const error = { code: 'mutation_outcome_unknown', message };
  return failure({
    error: { ...error, ...(variant ? { variant } : {}), retryable: entry.retryable },
    nextAction: mcpNextStep(error, entry.status, variant),
  });
}

/** An API error as a tool error, in MCP words (`variant`: the tool's situation, e.g. revert). */
export function apiErrorResult(error: McpApiError, variant?: string): CallToolResult {
  return failure({ error: error.error, nextAction: nextActionFor(error, variant) });
}

/** Runs a tool; an API error becomes a tool error in MCP words (`variant`: the tool's situation, e.g. revert). */
export async function guarded(run: () => Promise<CallToolResult>, variant?: string): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpApiError) return apiErrorResult(error, variant);
    if (error instanceof ReportInputError) {
      return mcpFailure('invalid_report', 'Fix the range or currency and call report again.', error.message);
    }
    throw error;
  }
}
