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
  HTTP_ERRORS,
  hintFor,
  inAudienceWords,
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

/** Every situation of every API code: its entry, and each variant with a hint of its own. */
function situations(): { name: string; code: string; hint: string }[] {
  return ERROR_CODES.flatMap((code) => {
    const entry: ErrorEntry = errorEntry(code);
    return [
      { name: code, code, hint: entry.hint },
      ...Object.entries(entry.variants ?? {}).flatMap(([variant, v]) =>
        v.hint === undefined ? [] : [{ name: `${code}.${variant}`, code, hint: v.hint }],
      ),
    ];
  });
}

describe('every error text for every audience', () => {
  it('gives every API code and variant a hint for each audience, in its words (own text or the fallback)', () => {
    const problems: string[] = [];
    for (const { name, code, hint } of situations()) {
      for (const reader of READERS) {
        const text = hintFor({ code, hint }, reader);
        if (!text) problems.push(`${name}: no ${reader} hint`);
        for (const word of FOREIGN[reader])
          if (text && word.test(text)) problems.push(`${name} (${reader}): ${text}`);
      }
      expect(hintFor({ code, hint }, 'http'), name).toBe(hint);
    }
    expect(problems).toEqual([]);
  });

  it('words the texts built at a throw site (the SQL refusals) for each audience', () => {
    const texts = [
      ...[DIALECT_WORDS.read, DIALECT_WORDS.write, DIALECT_WORDS.mixed, DIALECT_WORDS.oneStatement],
      `${DIALECT_WORDS.modes.query} takes a read; this is INSERT.`,
      `${DIALECT_WORDS.modes.execute} takes INSERT, UPDATE or DELETE; this is SELECT.`,
      'Use workspace w1 (or no X-Workspace-Id), or ask the user to connect again with access to this workspace.',
      'amount is required: give it a value in every row (GET /schema shows which columns are required and which are filled for you).',
    ];
    for (const text of texts) {
      for (const reader of READERS) {
        const worded = inAudienceWords(text, reader);
        expect(worded, `${reader}: ${text}`).not.toMatch(ROUTE);
        expect(worded, `${reader}: ${text}`).not.toMatch(/X-Workspace-Id/);
        expect(hintFor({ code: 'statement_kind_mismatch', hint: text }, reader)).toBe(worded);
      }
    }
    expect(inAudienceWords(`This writes; ${DIALECT_WORDS.read}.`, 'cli')).toBe(
      'This writes; run reads with `expense query`.',
    );
    expect(inAudienceWords('Ask the user to check the file.', 'console')).toBe('Check the file.');
    expect(inAudienceWords('Ask the user to check the file.', 'mcp')).toBe('Ask the user to check the file.');
  });

  it('picks the situation by its HTTP hint: a variant over its entry, and no hint as the entry', () => {
    const change = HTTP_ERRORS.not_found.variants.change;
    expect(hintFor({ code: 'not_found', hint: change.hint }, 'console')).toBe(change.consoleHint);
    expect(hintFor({ code: 'not_found' }, 'cli')).toBe(HTTP_ERRORS.not_found.cliHint);
    expect(
      hintFor({ code: 'invalid_code', hint: HTTP_ERRORS.invalid_code.variants.void.hint }, 'console'),
    ).toBe(HTTP_ERRORS.invalid_code.variants.void.hint);
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
const CATALOGUE = 'packages/wire/src/error-catalog.ts';

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
      .filter((file) => relative(ROOT, file) !== CATALOGUE)
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
