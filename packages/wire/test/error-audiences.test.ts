import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MCP_ERRORS } from '../src/error-catalog.js';
import {
  type Audience,
  CLI_ERRORS,
  CLI_EXIT_CODES,
  DIALECT_WORDS,
  ERROR_CODES,
  type ErrorEntry,
  errorEntry,
  errorOf,
  HTTP_ERRORS,
  hintFor,
  inAudienceWords,
  OWN_HINT,
  render,
} from '../src/index.js';

type Reader = Exclude<Audience, 'http'>;

const ROUTE = /\b(?:GET|POST|PUT|PATCH|DELETE) \/|\/sql\b|\/v1\//;
const AGENT = /ask the user/i;
/**
 * What each audience must never read (the fallback rule: an audience without a text of its own reads the HTTP
 * hint only where it names none of these). An MCP agent calls tools; the CLI names commands; a person on the
 * console knows pages and buttons, not headers, JSON fields or commands.
 */
const FOREIGN: Record<Reader, readonly RegExp[]> = {
  mcp: [ROUTE, /X-Workspace-Id/],
  cli: [ROUTE, /X-Workspace-Id/, AGENT, /discovery/, /\bcall (?:history|execute|query)\b/, /get_schema/],
  console: [
    ROUTE,
    AGENT,
    /X-Workspace-Id|Idempotency-Key|Retry-After|Authorization|ApiKey|Content-Type|X-Request-Id|Allow header/,
    /dryRun|confirmToken|details\./,
    /`expense /,
    /get_schema|list_workspaces|\bcall history\b/,
  ],
};
const READERS = Object.keys(FOREIGN) as Reader[];

/** A value for every fact a catalogue text interpolates. */
const FACTS = { kind: 'INSERT', count: 2, column: 'amount', workspace: 'w1' };

/** Every situation of every API code: its entry, and each variant (with the facts its texts interpolate). */
function situations(): { name: string; code: string; variant?: string; hint: string }[] {
  return ERROR_CODES.flatMap((code) => {
    const entry: ErrorEntry = errorEntry(code);
    return [
      { name: code, code, hint: entry.hint },
      ...Object.entries(entry.variants ?? {}).flatMap(([variant, v]) =>
        v.hint === undefined ? [] : [{ name: `${code}.${variant}`, code, variant, hint: v.hint }],
      ),
    ];
  });
}

describe('every error text for every audience', () => {
  it('gives every API code and variant a message and hint for each audience, in its words (own text or the fallback)', () => {
    const problems: string[] = [];
    for (const { name, code, variant, hint } of situations()) {
      for (const reader of READERS) {
        const { message, hint: text } = render({ code, variant, facts: FACTS }, reader);
        if (!text) problems.push(`${name}: no ${reader} hint`);
        for (const word of FOREIGN[reader]) {
          if (text && word.test(text)) problems.push(`${name} (${reader}): ${text}`);
        }
        // Messages say what happened (a header or a field may be named); none names a route to another audience.
        if (message && ROUTE.test(message)) problems.push(`${name} (${reader} message): ${message}`);
        if (`${message} ${text}`.includes('{{')) problems.push(`${name} (${reader}): a fact left out`);
      }
      expect(render({ code, variant }, 'http').hint, name).toBe(hint);
    }
    expect(problems).toEqual([]);
  });

  it('renders the SQL refusals from their variant and facts, as the guard words them on HTTP', () => {
    const write = errorOf('statement_kind_mismatch', 'query_write', { kind: 'INSERT' });
    expect(write).toMatchObject({
      message: `${DIALECT_WORDS.modes.query} takes a read; this is INSERT.`,
      hint: DIALECT_WORDS.write,
    });
    expect(render(write, 'mcp')).toEqual({
      message: 'the query tool takes a read; this is INSERT.',
      hint: 'send one INSERT, UPDATE or DELETE to the execute tool',
    });
    expect(render(write, 'console')).toEqual({
      message: '“Run query” takes a read; this is INSERT.',
      hint: 'Use “Dry run write” for a statement that changes data',
    });
    const several = errorOf('multiple_statements_not_allowed', 'execute', { count: 3 });
    expect(several.message).toBe(
      `${DIALECT_WORDS.modes.execute} takes exactly one statement; this SQL holds 3.`,
    );
    expect(render(several, 'cli').message).toBe(
      '`expense exec` takes exactly one statement; this SQL holds 3.',
    );
    // An API answer carries the situation in details.
    const answered = {
      code: write.code,
      message: write.message,
      hint: write.hint,
      details: { variant: 'query_write', facts: { kind: 'INSERT' } },
    };
    expect(render(answered, 'cli').hint).toBe('run one INSERT, UPDATE or DELETE with `expense exec`');
    expect(render(errorOf('sql_execution_failed', 'not_null', { column: 'amount' }), 'mcp').hint).toBe(
      'amount is required: give it a value in every row (get_schema shows which columns are required and which are filled for you).',
    );
  });

  it("reads a throw site's own hint as sent, with the route words of the texts no catalogue entry holds yet", () => {
    const own = {
      code: 'import_unreadable',
      hint: 'Send it to POST /sql/query.',
      details: { variant: OWN_HINT },
    };
    expect(render(own, 'mcp').hint).toBe('Send it to the query tool.');
    expect(render(own, 'http').hint).toBe('Send it to POST /sql/query.');
    expect(inAudienceWords('Ask the user to check the file.', 'console')).toBe('Check the file.');
    expect(inAudienceWords('Ask the user to check the file.', 'mcp')).toBe('Ask the user to check the file.');
  });

  it('picks the situation by its variant: a variant over its entry, and none as the entry', () => {
    const change = HTTP_ERRORS.not_found.variants.change;
    expect(hintFor({ code: 'not_found', variant: 'change' }, 'console')).toBe(change.consoleHint);
    expect(hintFor({ code: 'not_found', details: { variant: 'change' } }, 'console')).toBe(
      change.consoleHint,
    );
    expect(hintFor({ code: 'not_found' }, 'cli')).toBe(HTTP_ERRORS.not_found.cliHint);
    expect(hintFor({ code: 'not_found', variant: 'key' }, 'cli')).toBe(HTTP_ERRORS.not_found.cliHint);
    expect(hintFor({ code: 'invalid_code', variant: 'void' }, 'console')).toBe(
      HTTP_ERRORS.invalid_code.variants.void.hint,
    );
    expect(hintFor({ code: 'something_new', hint: 'Send it to /sql/query.' }, 'mcp')).toBe(
      'Send it to the query tool.',
    );
    expect(hintFor({ code: 'something_new' }, 'console')).toBeUndefined();
  });

  it("gives the MCP layer's codes a message, and the CLI's own codes an exit code of cli.md", () => {
    for (const [code, entry] of Object.entries(MCP_ERRORS))
      expect(entry.message.length, code).toBeGreaterThan(0);
    const exits = new Set<number>(Object.values(CLI_EXIT_CODES));
    for (const [code, entry] of Object.entries(CLI_ERRORS)) {
      expect(exits.has(CLI_EXIT_CODES[entry.exit]), code).toBe(true);
      const texts: (string | undefined)[] = [
        (entry as { message?: string }).message,
        (entry as { hint?: string }).hint,
      ];
      for (const text of texts) if (text) expect(text, code).not.toMatch(ROUTE);
    }
  });
});

// The modules that show errors to someone: none may reword hints with patterns of its own.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCANNED = ['packages/cli/src', 'packages/wire/src', 'packages/server/src', 'packages/server/console'];
/** The catalogue: error-catalog.ts and the files of error-catalog/. */
const CATALOGUE = 'packages/wire/src/error-catalog';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // Tests (a feature's test/ folder) are not the product's words.
    if (statSync(path).isDirectory()) return name === 'test' ? [] : sources(path);
    return /\.(?:ts|js)$/.test(name) ? [path] : [];
  });
}

/** Regular-expression literals of a source text (after a token that cannot end an expression). */
const REGEX_LITERAL =
  /(?:^|[=(,:[!&|?;{}]|\breturn)\s*\/(?![*/])((?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])+)\/[dgimsuy]*/gm;
/** What a regex that rewrites an agent's hint matches: routes, headers, agent phrasing, discovery. */
const HINT_WORDS =
  /\\\/(?:\(\?:v1\\\/\)\?)?(?:v1\\\/)?sql|(?:GET|POST) \\\/|X-Workspace-Id|ask the user|discovery/i;

describe('one owner of the hints', () => {
  it('has no module outside the catalogue rewrite hints with regexes', () => {
    const files = SCANNED.flatMap((dir) => sources(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .filter((file) => !relative(ROOT, file).startsWith(CATALOGUE))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(REGEX_LITERAL)]
          .filter((m) => HINT_WORDS.test(m[1] ?? ''))
          .map((m) => `${relative(ROOT, file)}: /${m[1]}/`),
      );
    expect(offenders).toEqual([]);
  });

  it('would catch the regex rewrites the catalogue replaced', () => {
    const old = [
      "[/(?:POST )?\\/(?:v1\\/)?sql\\/query\\b/g, '`expense query`'],",
      "[/\\bGET \\/(?:v1\\/)?schema\\b/g, 'get_schema'],",
      "[/ask the user to /gi, ''],",
      "[/X-Workspace-Id/g, '--workspace'],",
    ];
    for (const line of old) {
      const literal = [...line.matchAll(REGEX_LITERAL)][0]?.[1] ?? '';
      expect(HINT_WORDS.test(literal), line).toBe(true);
    }
  });
});
