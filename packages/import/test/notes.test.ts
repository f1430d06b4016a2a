import { describe, expect, it } from 'vitest';
import {
  ImportError,
  type ImportHooks,
  noteWords,
  prepareImport,
  problemWords,
  type RowProblem,
} from '../src/index.js';

const hooks: ImportHooks = {
  chooseDateFormat: async () => {
    throw new Error('not asked in this test');
  },
  workspaceCurrency: async () => 'EUR',
};
const bytes = (text: string) => new TextEncoder().encode(text);

/** Options, routes or query syntax no API client has: what an API note must never name. */
const NOT_THE_API = /(?:^|[\s("'`])--[a-z]|\?[a-zA-Z]+=|\b(?:GET|POST) \//;

describe("the reader's notes as data, worded for each reader", () => {
  it('says the settings that override a decision by their CLI options, and by the API parameter names', async () => {
    const prepared = await prepareImport(
      {
        fileName: 'plain.csv',
        bytes: bytes('ts,amount,counterparty\n24.03.2026,-12.50,Bakery\n25.03.2026,-3.20,Kiosk\n'),
        account: 'checking',
      },
      hooks,
    );
    expect(prepared.notes).toEqual(prepared.noted.map((note) => noteWords(note, 'cli')));
    const cli = prepared.notes.join('\n');
    expect(cli).toContain('Dates read as DD.MM.YYYY (--date-format to say otherwise).');
    expect(cli).toContain(
      "plain.csv has no currency column: the rows are in EUR, the workspace's reporting currency (--currency to say otherwise).",
    );
    const api = prepared.noted.map((note) => noteWords(note, 'api'));
    // The API has no date format setting: its note says what was decided and names nothing else.
    expect(api).toContain('Dates read as DD.MM.YYYY.');
    expect(api).toContain(
      "plain.csv has no currency column: the rows are in EUR, the workspace's reporting currency (currency to say otherwise).",
    );
    for (const note of api) expect(note).not.toMatch(NOT_THE_API);
  });

  it("words the signs the caller gave, and the file's own account, for each reader", () => {
    const given = { kind: 'charges', facts: { charges: 'positive' } } as const;
    expect(noteWords(given, 'cli')).toBe('Signs: --charges-positive.');
    expect(noteWords(given, 'api')).toBe('Signs: charges written as positive numbers, as given.');
    const account = {
      kind: 'settable',
      facts: { text: 'The account: DE89 3704', setting: 'account' },
    } as const;
    expect(noteWords(account, 'cli')).toBe('The account: DE89 3704 (--account to say otherwise).');
    expect(noteWords(account, 'api')).toBe('The account: DE89 3704 (account to say otherwise).');
    const encoding = {
      kind: 'settable',
      facts: { text: 'x.csv is not UTF-8', setting: 'encoding' },
    } as const;
    expect(noteWords(encoding, 'api')).toBe('x.csv is not UTF-8.');
  });

  it('gives a refusal whose next step names the account or the columns its situation for the API', async () => {
    const refused = (text: string) =>
      prepareImport({ fileName: 'f.csv', bytes: bytes(text), preset: false }, hooks).then(
        () => undefined,
        (error: unknown) => error,
      );
    const noAccount = await refused('ts,amount,counterparty\n2026-03-24,-12.50,Bakery\n');
    expect(noAccount).toBeInstanceOf(ImportError);
    expect((noAccount as ImportError).situation).toEqual({ variant: 'import_account' });
    // The CLI's own words stay the reader's.
    expect((noAccount as ImportError).hint).toContain('--account <id>');
    // Read with no layout, its columns are found by name only: those missing are named.
    const columns = await refused('Foo,Bar\nqq,zz\nrr,ss\n');
    expect((columns as ImportError).situation).toEqual({
      variant: 'import_columns',
      facts: { missing: 'ts, account_id, amount' },
    });
    // Recognised, no layout reads it.
    const layout = await prepareImport(
      { fileName: 'f.csv', bytes: bytes('Foo,Bar\nqq,zz\nrr,ss\n') },
      hooks,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((layout as ImportError).situation).toEqual({ variant: 'import_layout' });
    expect((layout as ImportError).hint).toContain('--map');
    const rows = await refused('ts,amount,counterparty,account_id\n2026-03-24,twelve,Bakery,checking\n');
    expect((rows as ImportError).situation).toEqual({ variant: 'rows_refused' });
    expect((rows as ImportError).details?.problems).toEqual(expect.any(Array));
  });
});

describe("a row's problem as data, worded for each reader", () => {
  async function refusedRows(csv: string): Promise<RowProblem[]> {
    const error = await prepareImport(
      { fileName: 'rows.csv', bytes: bytes(csv), account: 'checking' },
      hooks,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImportError);
    return ((error as ImportError).details?.problems ?? []) as RowProblem[];
  }

  it('says which setting would read an amount with a decimal comma, by the CLI option or in the API’s words', async () => {
    const problems = await refusedRows(
      'ts,amount,counterparty\n2026-03-24,-12.50,Bakery\n2026-03-25,"-1,50",Kiosk\n2026-03-26,-4.00,Cafe\n',
    );
    const comma = problems.find((p) => p.fix?.setting === 'decimalComma');
    expect(comma).toMatchObject({ line: 3, field: 'amount' });
    expect(comma?.message).not.toMatch(NOT_THE_API);
    expect(problemWords(comma as RowProblem, 'cli')).toMatch(/ — a decimal comma\? use --decimal-comma$/);
    expect(problemWords(comma as RowProblem, 'api')).toMatch(/ — a decimal comma\?$/);
  });

  it('names the account setting for a row without one: --account on the command line, account for the API', () => {
    const problem: RowProblem = {
      line: 2,
      field: 'account_id',
      message: 'is empty',
      fix: { setting: 'account' },
    };
    expect(problemWords(problem, 'cli')).toBe('is empty (give the column a value, or use --account)');
    expect(problemWords(problem, 'api')).toBe('is empty (give the column a value, or give account)');
    const date: RowProblem = {
      line: 3,
      field: 'ts',
      message: '"13/14/2026" is not a date',
      fix: { setting: 'dateFormat', orders: 'MM/DD/YYYY or DD/MM/YYYY' },
    };
    expect(problemWords(date, 'cli')).toContain(
      'give its order with --date-format (MM/DD/YYYY or DD/MM/YYYY)',
    );
    expect(problemWords(date, 'api')).not.toMatch(NOT_THE_API);
  });
});
