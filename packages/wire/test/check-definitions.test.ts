// scripts/check-definitions.mjs (in `pnpm lint`): a second definition of the SQL result, the ledger columns or the
// routes fails it. Planted definitions, in files as the script reads them, against its homes.
import { describe, expect, it } from 'vitest';

interface SourceFile {
  path: string;
  text: string;
}
interface CheckDefinitions {
  HOMES: Record<'sqlResult' | 'ledgerColumns' | 'routes', string>;
  KNOWN_COPIES: Record<'sqlResult' | 'ledgerColumns' | 'routes', string[]>;
  secondDefinitions(files: SourceFile[], known?: CheckDefinitions['KNOWN_COPIES']): string[];
  sourceFiles(root: string): SourceFile[];
  PATHS_AS_SUBJECT: Record<string, string>;
  spelledPaths(files: SourceFile[], subjects?: Record<string, string>): string[];
  testFiles(root: string): SourceFile[];
}

const script = new URL('../../../scripts/check-definitions.mjs', import.meta.url);
const check = (await import(script.href)) as CheckDefinitions;
const NONE = { sqlResult: [], ledgerColumns: [], routes: [] };
const problems = (...files: SourceFile[]) => check.secondDefinitions(files, NONE);

const ZOD_STATEMENT = `const Statement = z.object({
  index: z.number(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.record(z.string(), z.unknown())),
  rowCount: z.number(),
  returnedRowCount: z.number(),
  totalRowCount: z.number(),
  truncated: z.boolean(),
});`;

describe('check-definitions', () => {
  it('passes the repository as it is: one home each, and tests that call routes by name', () => {
    const root = new URL('../../..', import.meta.url).pathname;
    expect(check.secondDefinitions(check.sourceFiles(root))).toEqual([]);
    const tests = check.testFiles(root);
    expect(tests.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'packages/wire/test/check-definitions.test.ts',
        'packages/server/src/features/sql/test/setup.ts',
        'packages/server/bench/scale.ts',
        'packages/server/test-faults/fuzz-http.ts',
      ]),
    );
    expect(check.spelledPaths(tests)).toEqual([]);
  });

  it('fails on a path a test or tool sends to; a title or label that names a route is prose', () => {
    const test = (text: string) => check.spelledPaths([{ path: 'packages/cli/test/x.test.ts', text }], {});
    expect(test("await live.request('GET', '/v1/me', { key });")).toEqual([
      expect.stringMatching(
        /^packages\/cli\/test\/x\.test\.ts:1: .* a \/v1\/ path spelled in a test or tool/,
      ),
    ]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text as a planted file holds it
    expect(test('await fetch(`${origin}/v1/changes/${id}/revert`);')).toHaveLength(1);
    expect(test("fetch('http://127.0.0.1:8787/v1/schema')")).toHaveLength(1);
    expect(test("it('keeps GET /v1/me answering', async () => {});")).toEqual([]);
    expect(test('// GET /v1/me\nconst url = routePath(API_ROUTES.me);')).toEqual([]);
  });

  it('keeps the paths that are a file’s subject, and asks for an entry to go once its file spells none', () => {
    const subjects = { 'packages/server/test-faults/fuzz.ts': 'the fuzzer’s input' };
    const fuzz = (text: string) =>
      check.spelledPaths([{ path: 'packages/server/test-faults/fuzz.ts', text }], subjects);
    expect(fuzz("send('/v1/me/../keys');")).toEqual([]);
    expect(fuzz('send(routePath(API_ROUTES.me));')).toEqual([
      expect.stringMatching(/spells no \/v1\/ path — remove it from PATHS_AS_SUBJECT/),
    ]);
  });

  it('fails on a second zod object of the SQL result, or a hand-written check of it, anywhere but its home', () => {
    expect(problems({ path: 'packages/mcp/src/tools.ts', text: ZOD_STATEMENT })).toEqual([
      expect.stringMatching(/^packages\/mcp\/src\/tools\.ts: a second definition of the SQL result/),
    ]);
    const handWritten = `const s = object({ rows: array(record(unknown)), rowCount: int, returnedRowCount: int,
      totalRowCount: int, truncated: boolean });`;
    expect(problems({ path: 'packages/cli/src/checks/wire.ts', text: handWritten })).toHaveLength(1);
    expect(problems({ path: check.HOMES.sqlResult, text: ZOD_STATEMENT })).toEqual([]);
  });

  it('reads code, not comments, and not a statement’s uses', () => {
    const commented = ZOD_STATEMENT.split('\n')
      .map((l) => `// ${l}`)
      .join('\n');
    const used =
      'const n = s.rowCount + s.returnedRowCount; return { ...s, rows, returnedRowCount: rows.length };';
    expect(problems({ path: 'packages/cli/src/a.ts', text: `${commented}\n${used}` })).toEqual([]);
  });

  it('fails on a second literal list of the ledger columns', () => {
    const list = `export const COLUMNS = ['ts', 'account_id', 'amount', 'currency', 'kind', 'category',
      'counterparty', 'note', 'event_id', 'external_id'] as const;`;
    expect(problems({ path: 'packages/server/src/features/imports/columns.ts', text: list })).toEqual([
      expect.stringMatching(/a second list of the ledger columns/),
    ]);
    // A few of them (an import's own fields) are not the list.
    expect(
      problems({ path: 'packages/x/src/a.ts', text: "const LEDGER_ONLY = ['ts', 'account_id', 'kind'];" }),
    ).toEqual([]);
  });

  it('fails on a second route table, and on a /v1/ path spelled in the console, the CLI or the MCP server', () => {
    const table = `export const SQL_ROUTES = {
  '/sql/query': { method: 'POST', path: '/sql/query' },
  '/sql': { method: 'POST', path: '/sql' },
};`;
    expect(problems({ path: 'packages/cli/src/api/index.ts', text: table })).toEqual([
      expect.stringMatching(/a second route table/),
    ]);
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text as a planted file holds it
      problems({ path: 'packages/server/console/pages/keys.js', text: 'const url = `${origin}/v1/me`;' }),
    ).toEqual([
      expect.stringMatching(/^packages\/server\/console\/pages\/keys\.js:1: .* a \/v1\/ path spelled/),
    ]);
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text as a planted file holds it
      problems({ path: 'packages/cli/src/http/x.ts', text: "fetch(`${base}/v1/${'sql'}`);" }),
    ).toHaveLength(1);
    expect(
      problems({ path: 'packages/mcp/src/tools.ts', text: "const url = '/v1/sql/query';" }),
    ).toHaveLength(1);
    // a comment, and a file of the server (which registers the routes), are not spelled calls
    expect(problems({ path: 'packages/cli/src/a.ts', text: '/** `/v1/me` → `/me` */' })).toEqual([]);
    expect(problems({ path: 'packages/server/src/a.ts', text: "const p = '/v1/me';" })).toEqual([]);
  });

  it('asks for a known copy to be struck off once it is gone, so the list only shrinks', () => {
    const known = { ...NONE, ledgerColumns: ['packages/import/src/rows/fields.ts'] };
    const file = {
      path: 'packages/import/src/rows/fields.ts',
      text: 'export const LEDGER_FIELDS = FROM_HOME;',
    };
    expect(check.secondDefinitions([file], known)).toEqual([
      expect.stringMatching(
        /no longer holds a second list of the ledger columns .* remove it from KNOWN_COPIES/,
      ),
    ]);
  });
});
