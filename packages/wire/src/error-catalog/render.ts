import { type ErrorCode, type ErrorVariantOf, errorEntry, isErrorCode } from './codes.js';
import { DIALECT_WORDS } from './guard.js';
import type { Audience, AudienceHints, ErrorVariant } from './types.js';

/** A phrase of hints and messages built at a throw site, in each audience's words (absent: as on HTTP). */
type Phrase = { readonly http: string } & { readonly [A in Exclude<Audience, 'http'>]?: string };

/**
 * The HTTP phrases that texts built at a throw site (a guard refusal, the SQL route's, the workspace rule's) carry,
 * in every audience's words; longest first, each replaced as written (no patterns).
 */
const PHRASES: readonly Phrase[] = [
  {
    http: ' (and GET /schema, GET /me)',
    mcp: ' (and get_schema)',
    cli: ' (and `expense schema`, `expense whoami`)',
  },
  {
    http: 'POST /sql one or more, applied atomically',
    mcp: 'the execute tool also takes several, applied atomically',
    cli: '`expense sql -f <file>` one or more, applied atomically',
  },
  {
    http: 'POST /changes/{changeId}/revert',
    mcp: 'the revert tool',
    cli: '`expense revert <changeId>`',
    console: 'Revert on the Activity page',
  },
  { http: 'GET /changes', mcp: 'the history tool', cli: '`expense history`', console: 'the Activity page' },
  { http: 'POST /sql/query', mcp: 'the query tool', cli: '`expense query`', console: '“Run query”' },
  { http: 'POST /sql/execute', mcp: 'the execute tool', cli: '`expense exec`', console: '“Dry run write”' },
  { http: DIALECT_WORDS.modes.query, mcp: 'the query tool', cli: '`expense query`', console: '“Run query”' },
  {
    http: DIALECT_WORDS.modes.execute,
    mcp: 'the execute tool',
    cli: '`expense exec`',
    console: '“Dry run write”',
  },
  { http: 'GET /schema', mcp: 'get_schema', cli: '`expense schema`' },
  // POST /v1/imports: the reader's options in the API's query words (features/imports/routes.ts), for the import tool.
  { http: 'POST /v1/imports', mcp: 'the import tool', console: 'the import' },
  { http: '?account=<account_id>', mcp: 'the account argument' },
  { http: '?chargesPositive=true', mcp: 'charges: "positive"' },
  { http: '?chargesNegative=true', mcp: 'charges: "negative"' },
  { http: '?currency=XXX', mcp: 'the currency argument' },
  { http: ' (--date-format to say otherwise)', mcp: '' },
  { http: ' (--encoding to say otherwise)', mcp: '' },
  { http: 'GET /v1/guide', mcp: 'get_guide' },
  { http: 'Ask the user to ', console: '' },
  { http: 'ask the user to ', console: '' },
];

/**
 * A text built at a throw site in an audience's words: each phrase of PHRASES it carries, replaced as written. A
 * console text starts with a capital letter once changed (the agent's "Ask the user to check…" is "Check…").
 */
export function inAudienceWords(text: string, audience: Audience): string {
  if (audience === 'http') return text;
  let out = text;
  for (const phrase of PHRASES) {
    const words = phrase[audience];
    if (words !== undefined && out.includes(phrase.http)) out = out.split(phrase.http).join(words);
  }
  if (audience === 'console' && out !== text) out = out.charAt(0).toUpperCase() + out.slice(1);
  return out;
}

/** The values an error's texts interpolate, by name: `{{name}}` in a catalogue text. */
export type Facts = Readonly<Record<string, string | number>>;

/**
 * The variant of an error whose hint its throw site built from values only it knows (a constraint's rule, the
 * fields of a request): every audience reads that hint as sent.
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
 * words for are read as sent, with the route words they may carry in the audience's (`inAudienceWords`).
 */
export function render(error: ReceivedError, audience: Audience): RenderedError {
  const { code, variant, facts } = situationIn(error);
  const asSent = (text: string | undefined) =>
    text === undefined ? undefined : inAudienceWords(text, audience);
  if (!isErrorCode(code)) return { message: asSent(error.message), hint: asSent(error.hint) };
  const entry = errorEntry(code);
  if (variant === OWN_HINT) {
    return { message: asSent(error.message ?? entry.message), hint: asSent(error.hint) };
  }
  const v: ErrorVariant | undefined = variant === undefined ? undefined : entry.variants?.[variant];
  // The situation whose hint the error has: the variant where it has a hint of its own, else the entry.
  const situation: AudienceHints & { hint: string } = v?.hint === undefined ? entry : { ...v, hint: v.hint };
  if (audience === 'http') {
    return {
      message: error.message ?? withFacts(v?.message ?? entry.message, facts),
      hint: error.hint ?? withFacts(situation.hint, facts),
    };
  }
  const message = v?.[MESSAGE_FIELD[audience]];
  return {
    message:
      message === undefined
        ? asSent(error.message ?? withFacts(v?.message ?? entry.message, facts))
        : withFacts(message, facts),
    hint: withFacts(situation[HINT_FIELD[audience]] ?? situation.hint, facts),
  };
}

/** The hint of an error for one audience (`render`). */
export function hintFor(error: ReceivedError, audience: Audience): string | undefined {
  return render(error, audience).hint;
}
