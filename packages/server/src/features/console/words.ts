import { errorEntry, type ReceivedError, render } from '@expense/wire';

/**
 * The console's words for API errors: the error catalogue's console texts of the error's situation (its code, the
 * variant and facts the answer carries in `details`), for a person rather than an agent. The sign-in pages show them, and the proxy
 * gives the console's pages their errors in them (docs/architecture.md, "Errors").
 */

/** A sign-in page's hint for an API error (its situation: code, variant, facts). */
export function signInHint(error: ReceivedError): string | undefined {
  return render(error, 'console').hint;
}

interface ErrorBody {
  code: string;
  message?: unknown;
  hint?: string;
  details?: Record<string, unknown>;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { code, hint, details } = value as Record<string, unknown>;
  return (
    typeof code === 'string' &&
    (hint === undefined || typeof hint === 'string') &&
    (details === undefined || (typeof details === 'object' && details !== null))
  );
}

/**
 * An API answer for the console's pages: an error envelope (`{ok: false, error}`) with its message and hint in the
 * console's words; any other payload unchanged (undefined).
 */
export function inConsoleWords(payload: Buffer): Buffer | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const error = (envelope as { error?: unknown } | null)?.error;
  if (!isErrorBody(error)) return undefined;
  const { message, hint } = render(
    { ...error, message: typeof error.message === 'string' ? error.message : undefined },
    'console',
  );
  const worded = {
    ...error,
    ...(typeof error.message === 'string' && message !== undefined ? { message } : {}),
    ...(hint === undefined ? {} : { hint }),
  };
  return Buffer.from(JSON.stringify({ ...(envelope as object), error: worded }));
}

/** Where the console loads the catalogue's console words of the refusals it raises itself (console/words.d.ts). */
export const WORDS_MODULE_PATH = '/assets/words.js';

/** The codes of the refusals the Import page's reader (the import core, in the browser) raises, as the API's. */
const IMPORT_CODES = [
  'invalid_request',
  'import_unreadable',
  'import_ambiguous_sign',
  'import_unbalanced',
  'import_too_large',
] as const;

/**
 * The console's texts of a situation, `{{fact}}` left to fill: `message` the catalogue's console message where it has
 * one (`own`), else its HTTP message, which the page's thrown message replaces (`render`'s rule: read as sent).
 */
function consoleTexts(code: (typeof IMPORT_CODES)[number], variant?: string) {
  const { message, hint } = render({ code, ...(variant === undefined ? {} : { variant }) }, 'console');
  const own = variant !== undefined && errorEntry(code).variants?.[variant]?.consoleMessage !== undefined;
  return { message: message ?? '', hint: hint ?? '', own };
}

const CONSOLE_ERRORS = Object.fromEntries(
  IMPORT_CODES.map((code) => [
    code,
    {
      ...consoleTexts(code),
      variants: Object.fromEntries(
        Object.keys(errorEntry(code).variants ?? {}).map((variant) => [variant, consoleTexts(code, variant)]),
      ),
    },
  ]),
);

/**
 * The console's words of the import refusals as an ES module, from the catalogue (served, so there is no copy to
 * fall behind): a refusal of the import core carries its situation (`ImportError.situation`: the variant, its
 * facts), which `consoleWords` renders as `render(error, 'console')` does on the server.
 */
export const WORDS_MODULE = `// The catalogue's console words of the import's refusals (@expense/wire's error catalogue), served by the server.
export const CONSOLE_ERRORS = ${JSON.stringify(CONSOLE_ERRORS, null, 2)};

/** The API's code of an import situation (POST /v1/imports answers the same). */
export const SITUATION_CODES = { csv_syntax: 'import_unreadable', rows_refused: 'import_unreadable' };

const withFacts = (text, facts) =>
  text.replace(/\\{\\{(\\w+)\\}\\}/g, (whole, name) => (facts && Object.hasOwn(facts, name) ? String(facts[name]) : whole));

/** An error's message and hint in the console's words, from its code, variant and facts (undefined: unknown). */
export function consoleWords({ code, variant, facts, message }) {
  const entry = CONSOLE_ERRORS[code];
  if (entry === undefined) return undefined;
  const texts = (variant !== undefined && entry.variants[variant]) || entry;
  return {
    message: texts.own || message === undefined ? withFacts(texts.message, facts) : message,
    hint: withFacts(texts.hint, facts),
  };
}
`;
