import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MCP_ERRORS, MCP_IMPORT_LAYOUT_HINT } from '../src/error-catalog.js';
import * as catalogue from '../src/index.js';
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
  OWN_HINT,
  render,
  rulesFor,
  SCHEMA_RULE_WORDS,
  TRANSFER_RULE,
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
const FACTS = {
  kind: 'INSERT',
  count: 2,
  column: 'amount',
  workspace: 'w1',
  file: 'both.xml',
  missing: 'ts, amount',
  length: 11534336,
  limit: 10485760,
  event: "'move-1'",
  currency: 'EUR',
  sum: '-100',
};

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

  it("reads a throw site's own hint and an unknown code's texts as sent, reworded for no audience", () => {
    const own = {
      code: 'import_unreadable',
      message: 'The file is not a statement.',
      hint: 'Check the file.',
      details: { variant: OWN_HINT },
    };
    for (const audience of ['http', ...READERS] as const) {
      expect(render(own, audience)).toEqual({
        message: 'The file is not a statement.',
        hint: 'Check the file.',
      });
    }
    // No phrase table is left to patch route words into an audience's: a text naming a route stays as it is, so
    // a situation whose next step names one must be a variant of the catalogue.
    expect(render({ ...own, hint: 'Send it to POST /sql/query.' }, 'mcp').hint).toBe(
      'Send it to POST /sql/query.',
    );
    expect(render({ code: 'something_new', hint: 'Ask the user to check the file.' }, 'console').hint).toBe(
      'Ask the user to check the file.',
    );
    expect(Object.keys(catalogue)).not.toContain('inAudienceWords');
  });

  it('words every SQL refusal that names a mode in each audience, from its variant (no route outside HTTP)', () => {
    const WORDS: Record<Audience, RegExp> = {
      http: /\/sql\/(?:query|execute)|\/sql \(script mode\)/,
      mcp: /the (?:query|execute) tool/,
      cli: /`expense (?:query|exec|sql)/,
      console: /“Run query”|“Dry run write”|one statement|Write the change/,
    };
    for (const code of ['statement_kind_mismatch', 'multiple_statements_not_allowed'] as const) {
      for (const variant of Object.keys(errorEntry(code).variants ?? {})) {
        for (const audience of ['http', ...READERS] as const) {
          const { message, hint } = render({ code, variant, facts: FACTS }, audience);
          const name = `${code}.${variant} (${audience})`;
          expect(`${message} ${hint}`, name).toMatch(WORDS[audience]);
          if (audience !== 'http') expect(`${message} ${hint}`, name).not.toMatch(ROUTE);
          expect(`${message} ${hint}`, name).not.toContain('{{');
        }
      }
    }
  });

  it("words the import's refusals that name the account, the columns and the file's size in each audience", () => {
    const oneAccount = errorOf('invalid_request', 'import_one_account', { file: 'both.xml', count: 2 });
    expect(oneAccount.message).toBe('both.xml holds 2 accounts; ?account= names one.');
    expect(oneAccount.hint).toMatch(/^Send it again without \?account=/);
    expect(render(oneAccount, 'mcp')).toEqual({
      message: 'both.xml holds 2 accounts; the account argument names one.',
      hint: "Call import again without the account argument: each account of the file is imported under its own (the workspace's account of that name, or a new one).",
    });
    expect(render(oneAccount, 'cli').message).toBe('both.xml holds 2 accounts; --account names one.');
    expect(render(oneAccount, 'console').hint).toBe(
      'Import it without choosing an account: each account of the file is imported under its own.',
    );

    // ?account=<account_id>, as the HTTP answer has always said it, and no query syntax anywhere else.
    const account = errorOf('invalid_request', 'import_account');
    expect(account.hint).toContain('send it again with ?account=<account_id>');
    for (const reader of READERS) {
      expect(render(account, reader).hint, reader).not.toMatch(/\?account=/);
      expect(render(oneAccount, reader).hint, reader).not.toMatch(/\?account=/);
    }
    expect(render(account, 'mcp').hint).toContain('the account argument');
    expect(render(account, 'cli').hint).toContain('--account <id>');

    const columns = errorOf('invalid_request', 'import_columns', { missing: 'ts, amount' });
    expect(columns.message).toBe('No column for ts, amount.');
    expect(render(columns, 'mcp').hint).toMatch(/^The file has no column for ts, amount: ask the user/);
    expect(render(columns, 'console').hint).toBe("Choose which of the file's columns hold ts, amount.");
    expect(render(columns, 'cli').hint).toContain('--map');
    expect(render(columns, 'mcp').hint).not.toMatch(/--map|GET \//);

    // ?chargesPositive=true on HTTP; the tool's argument, the CLI's options and the console's words elsewhere.
    const sign = errorOf('import_ambiguous_sign');
    expect(sign.hint).toContain('?chargesPositive=true');
    expect(render(sign, 'mcp').hint).toContain('charges: "positive"');
    expect(render(sign, 'cli').hint).toContain('--charges-positive');
    for (const reader of READERS) expect(render(sign, reader).hint, reader).not.toMatch(/\?charges/);

    // A layout, a CSV or rows the reader refused with `expense import`'s options: each audience's own next step.
    const layout = errorOf('invalid_request', 'import_layout');
    expect(layout.hint).toMatch(/POST \/v1\/imports takes no column mapping/);
    expect(render(layout, 'mcp').hint).toBe(MCP_IMPORT_LAYOUT_HINT);
    expect(render(layout, 'cli').hint).toMatch(/--preset <name>.*--map "Column=field"/);
    for (const variant of ['csv_syntax', 'rows_refused'] as const) {
      const refused = errorOf('import_unreadable', variant);
      expect(refused.hint, variant).not.toBe(HTTP_ERRORS.import_unreadable.hint);
      expect(render(refused, 'cli').hint, variant).toMatch(/--(?:delimiter|map)/);
      for (const reader of ['mcp', 'console'] as const)
        expect(render(refused, reader).hint, `${variant} ${reader}`).not.toMatch(/--[a-z]|\bPOST \//);
    }

    const large = errorOf('import_too_large', 'declared_length', { length: 11534336, limit: 10485760 });
    expect(large.message).toBe(
      'The file is 11534336 bytes; POST /v1/imports reads at most 10485760 (10 MiB).',
    );
    expect(render(large, 'mcp').message).toBe(
      'The file is 11534336 bytes; the import tool reads at most 10485760 (10 MiB).',
    );
    expect(render(large, 'console').message).toBe(
      'The file is 11534336 bytes; an import reads at most 10 MiB.',
    );
    for (const reader of READERS) expect(render(large, reader).message, reader).not.toMatch(ROUTE);
  });

  it("words the schema's rules that name routes in each audience, from the catalogue's texts", () => {
    const answered = Object.values(SCHEMA_RULE_WORDS).map((rule) => rule.http);
    expect(answered.join(' ')).toMatch(/POST \/sql\/query.*GET \/me.*POST \/changes\/\{changeId\}\/revert/s);
    for (const reader of READERS) {
      for (const rule of rulesFor(answered, reader)) expect(rule, reader).not.toMatch(ROUTE);
    }
    expect(rulesFor(answered, 'mcp')).toEqual(
      Object.values(SCHEMA_RULE_WORDS).map((rule) => ('mcp' in rule ? rule.mcp : rule.http)),
    );
    const cli = rulesFor(answered, 'cli');
    expect(cli[Object.keys(SCHEMA_RULE_WORDS).indexOf('history')]).toContain('`expense revert <changeId>`');
    // The rule speaking to an agent about its user asks the person at the terminal instead.
    for (const reader of ['cli', 'console'] as const) {
      for (const rule of rulesFor(answered, reader)) expect(rule, reader).not.toMatch(/\bthe user\b/);
    }
    expect(cli).toContain(SCHEMA_RULE_WORDS.approval.cli);
    expect(rulesFor(answered, 'http')).toEqual(answered);
    expect(rulesFor(['SQL runs in UTC.'], 'mcp')).toEqual(['SQL runs in UTC.']);
    // The ledger's hint with the transfer rule, too.
    for (const reader of READERS) {
      const [words] = rulesFor([TRANSFER_RULE.http], reader);
      expect(words, reader).toBe(TRANSFER_RULE[reader]);
      expect(words, reader).not.toMatch(ROUTE);
    }
  });

  it('words an unbalanced transfer per audience from its facts: the HTTP text names the /sql script, no other does', () => {
    const unbalanced = {
      code: 'sql_execution_failed',
      variant: 'transfer_unbalanced',
      facts: { event: "'move-1'", currency: 'EUR', sum: '-100' },
    };
    const said = "The transfer rows of event_id 'move-1' in EUR sum to -100, not 0. ";
    expect(render(unbalanced, 'http').hint).toBe(`${said}${TRANSFER_RULE.http} Nothing was saved.`);
    expect(render(unbalanced, 'http').hint).toContain('or a /sql script); a one-legged transfer is refused');
    expect(render(unbalanced, 'mcp').hint).toContain('the execute tool with several statements');
    expect(render(unbalanced, 'cli').hint).toContain('`expense sql -f <file>` with several statements');
    expect(render(unbalanced, 'console').hint).toContain('one “Dry run write” on the SQL page');
    for (const reader of READERS) {
      const { hint } = render(unbalanced, reader);
      expect(hint, reader).toMatch(/^The transfer rows of event_id 'move-1' in EUR sum to -100, not 0\. /);
      for (const foreign of FOREIGN[reader]) expect(hint, reader).not.toMatch(foreign);
    }
    expect(
      render({ ...unbalanced, variant: 'transfer_unbalanced_unnamed', facts: undefined }, 'cli').hint,
    ).toBe(`${TRANSFER_RULE.cli} Nothing was saved.`);
    // As an API answer carries it.
    expect(
      render(
        {
          code: 'sql_execution_failed',
          details: { variant: 'transfer_unbalanced', facts: unbalanced.facts },
        },
        'mcp',
      ).hint,
    ).toBe(render(unbalanced, 'mcp').hint);
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
      'Send it to /sql/query.',
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
