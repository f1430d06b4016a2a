import { type ErrorCode, type ErrorVariantOf, errorEntry, isErrorCode } from './codes.js';
import type { Audience, AudienceHints, ErrorVariant } from './types.js';

/** The values an error's texts interpolate, by name: `{{name}}` in a catalogue text. */
export type Facts = Readonly<Record<string, string | number>>;

/**
 * The variant of an error whose hint its throw site built from values only it knows (a constraint's rule, the
 * fields of a request): every audience reads that hint as sent, so such a hint names no route, tool or command
 * (a situation whose next step names one is a variant of the catalogue, with each audience's words).
 */
export const OWN_HINT = 'own';

/** An error's situation as data: its code, the catalogue variant it arose in, the values its texts interpolate. */
export interface ErrorSituation<C extends string = string> {
  code: C;
  variant?: string | undefined;
  facts?: Facts | undefined;
}

/**
 * An error as someone receives it: its situation (as fields, or as an API answer carries it, in
 * `details.variant` and `details.facts`) and its texts as sent, in HTTP words.
 */
export interface ReceivedError {
  code: string;
  message?: string | undefined;
  hint?: string | undefined;
  variant?: string | undefined;
  facts?: Facts | undefined;
  details?: Readonly<Record<string, unknown>> | undefined;
}

/** An error's texts for one audience. */
export interface RenderedError {
  message: string | undefined;
  hint: string | undefined;
}

/**
 * One error value, made at its throw site from the catalogue: the code, its variant and the facts its texts
 * interpolate; the message and the hint are the catalogue's HTTP texts of that situation (`render` words them for
 * the other audiences).
 */
export function errorOf<C extends ErrorCode>(
  code: C,
  variant?: ErrorVariantOf<C>,
  facts?: Facts,
): ErrorSituation<C> & { message: string; hint: string } {
  const situation: ErrorSituation<C> = {
    code,
    ...(variant === undefined ? {} : { variant }),
    ...(facts === undefined ? {} : { facts }),
  };
  const { message, hint } = render(situation, 'http');
  return { ...situation, message: message ?? '', hint: hint ?? '' };
}

/** A catalogue text with its `{{name}}` facts put in (a fact the error lacks stays as written). */
export function withFacts(text: string, facts: Facts | undefined): string {
  if (facts === undefined || !text.includes('{{')) return text;
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) =>
    Object.hasOwn(facts, name) ? String(facts[name]) : whole,
  );
}

function factsIn(value: unknown): Facts | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter(
    (e): e is [string, string | number] => typeof e[1] === 'string' || typeof e[1] === 'number',
  );
  return Object.fromEntries(entries);
}

/** The situation an error carries: its own fields, else the API answer's `details.variant` and `details.facts`. */
export function situationIn(error: ReceivedError): ErrorSituation {
  const variant =
    error.variant ?? (typeof error.details?.variant === 'string' ? error.details.variant : undefined);
  const facts = error.facts ?? factsIn(error.details?.facts);
  return {
    code: error.code,
    ...(variant === undefined ? {} : { variant }),
    ...(facts === undefined ? {} : { facts }),
  };
}

const HINT_FIELD = { mcp: 'mcpHint', cli: 'cliHint', console: 'consoleHint' } as const;
const MESSAGE_FIELD = { mcp: 'mcpMessage', cli: 'cliMessage', console: 'consoleMessage' } as const;

/**
 * An error's message and hint for one audience, from its catalogue entry, its variant and its facts: the
 * audience's own text of the situation, else the situation's HTTP text (the fallback rule). A hint the throw site
 * built (variant `OWN_HINT`), a code the catalogue does not know, and a message the catalogue has no audience
 * words for are read as sent: nothing is reworded.
 */
export function render(error: ReceivedError, audience: Audience): RenderedError {
  const { code, variant, facts } = situationIn(error);
  if (!isErrorCode(code)) return { message: error.message, hint: error.hint };
  const entry = errorEntry(code);
  if (variant === OWN_HINT) return { message: error.message ?? entry.message, hint: error.hint };
  const v: ErrorVariant | undefined = variant === undefined ? undefined : entry.variants?.[variant];
  // The situation whose hint the error has: the variant where it has a hint of its own, else the entry.
  const situation: AudienceHints & { hint: string } = v?.hint === undefined ? entry : { ...v, hint: v.hint };
  const httpMessage = () => error.message ?? withFacts(v?.message ?? entry.message, facts);
  if (audience === 'http') {
    return { message: httpMessage(), hint: error.hint ?? withFacts(situation.hint, facts) };
  }
  const message = v?.[MESSAGE_FIELD[audience]];
  return {
    message: message === undefined ? httpMessage() : withFacts(message, facts),
    hint: withFacts(situation[HINT_FIELD[audience]] ?? situation.hint, facts),
  };
}

/** The hint of an error for one audience (`render`). */
export function hintFor(error: ReceivedError, audience: Audience): string | undefined {
  return render(error, audience).hint;
}
