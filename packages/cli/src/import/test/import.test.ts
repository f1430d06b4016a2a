import { PGlite } from '@electric-sql/pglite';
import type { LedgerRow } from '@expense/import';
import {
  BUDGET_FIELD_SET,
  BUDGET_TARGET,
  budgetMonth,
  buildInsert,
  eventProblems,
  ImportError,
  idempotencyKey,
  MAX_BATCH_ROWS,
  parseAmount,
  parseCsv,
  parseMapArgs,
  parseTimestamp,
  planBatches,
  resolveMapping,
  validateBudget,
  validateRecords,
} from '@expense/import';
import { createGuard } from '@expense/sql-guard';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../errors.js';

const validate = (csv: string, maps: string[] = [], account?: string) => {
  const parsed = parseCsv(csv);
  const mapping = resolveMapping(parsed.header, parseMapArgs(maps), account);
  return { mapping, ...validateRecords(parsed.header, parsed.records, mapping) };
};

describe('parseCsv', () => {
  it('numbers records by the line they start on, with CRLF, blank lines and multi-line fields', () => {
    const { header, records } = parseCsv(
      '\uFEFFts,note\r\n2026-01-01,a\r\n\r\n2026-01-02,"two\r\nlines"\r\n2026-01-03,c',
    );
    expect(header).toEqual(['ts', 'note']);
    expect(records.map((r) => [r.line, r.values[1]])).toEqual([
      [2, 'a'],
      [4, 'two\r\nlines'],
      [6, 'c'],
    ]);
  });
});

describe('mapping', () => {
  it('maps columns by field name (case and spacing ignored) and by --map', () => {
    const { mapping } = validate('Date,Account ID,AMOUNT,currency,Memo\n', ['Date=ts', 'Memo=note']);
    expect(mapping.columns).toEqual({ ts: 0, account_id: 1, amount: 2, currency: 3, note: 4 });
  });

  it('is a usage error (exit 2) to leave a required field unmapped or map a missing column', () => {
    const usage = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof CliError || error instanceof ImportError ? error.exitCode : undefined;
      }
    };
    expect(usage(() => validate('ts,amount,currency\n'))).toBe(ExitCode.usage);
    expect(usage(() => validate('ts,amount,currency,account_id\n', ['Nope=note']))).toBe(ExitCode.usage);
    expect(usage(() => parseMapArgs(['a=not_a_field']))).toBe(ExitCode.usage);
    expect(() => validate('ts,amount,currency\n', [], 'cash')).not.toThrow();
  });

  it('reports columns that feed nothing', () => {
    expect(validate('ts,amount,currency,extra\n', [], 'cash').mapping.ignored).toEqual(['extra']);
  });
});

describe('validateRecords', () => {
  it('infers kind from the sign, fills --account, normalises values', () => {
    const { rows, problems } = validate(
      'ts,amount,currency\n2026-01-05,-12.5,usd\n2026-01-06 09:30,+.5,EUR\n',
      [],
      'cash',
    );
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.ts, r.amount, r.currency, r.kind, r.account_id])).toEqual([
      ['2026-01-05', '-12.5', 'USD', 'spend', 'cash'],
      ['2026-01-06T09:30', '0.5', 'EUR', 'income', 'cash'],
    ]);
  });

  it('reports every problem with its line number', () => {
    const csv = [
      'ts,account_id,amount,currency,kind',
      '2026-02-30,cash,1,USD,', // line 2: no such date
      '2026-01-01,cash,1.234,56,USD,', // line 3: too many fields
      '2026-01-01,cash,"1,5",USD,', // line 4: comma decimal
      '2026-01-01,cash,0,USD,', // line 5: zero without kind
      '2026-01-01,,5,US,bonus', // line 6: three problems
      '2026-01-01,cash,5,USD,income', // line 7: fine
    ].join('\n');
    const { rows, problems } = validate(csv);
    expect(rows).toHaveLength(1);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [2, 'ts'],
      [3, undefined],
      [4, 'amount'],
      [5, 'amount'],
      [6, 'currency'],
      [6, 'kind'],
    ]);
  });

  it('derives stable external ids that keep identical rows apart', () => {
    const csv = 'ts,account_id,amount,currency\n2026-01-01,cash,-1,USD\n2026-01-01,cash,-1,USD\n';
    const first = validate(csv).rows.map((r) => r.external_id);
    const again = validate(csv).rows.map((r) => r.external_id);
    expect(first).toEqual(again);
    expect(new Set(first).size).toBe(2);
    expect(first[0]).toMatch(/^csv:[0-9a-f]{40}$/);
  });

  it('refuses a mapped external_id that repeats', () => {
    const csv = 'ts,account_id,amount,currency,external_id\n2026-01-01,a,1,USD,x\n2026-01-02,a,2,USD,x\n';
    expect(validate(csv).problems).toEqual([
      { line: 3, field: 'external_id', message: 'repeats the external_id "x" of line 2' },
    ]);
  });
});

describe('value parsers', () => {
  it.each(['2026-01-01', '2026-01-01T00:00:00Z', '2026-01-01T10:00:00.123+02:00', '2026-01-01 10:00-0500'])(
    'accepts %s',
    (v) => expect(parseTimestamp(v).ok).toBe(true),
  );
  it.each(['01/02/2026', '2026-13-01', '2026-01-01T25:00', 'yesterday', ''])('refuses %s', (v) =>
    expect(parseTimestamp(v).ok).toBe(false),
  );
  it('keeps amounts exact', () => {
    expect(parseAmount('123456789012345678.000000001')).toEqual({
      ok: true,
      value: '123456789012345678.000000001',
    });
    expect(parseAmount('$5').ok).toBe(false);
  });
});

const row = (i: number, extra: Partial<LedgerRow> = {}): LedgerRow => ({
  line: i + 2,
  ts: '2026-01-01',
  account_id: 'cash',
  amount: `-${i}.25`,
  currency: 'USD',
  kind: 'spend',
  category: null,
  counterparty: null,
  note: null,
  event_id: null,
  external_id: `x-${i}`,
  ...extra,
});

describe('planBatches', () => {
  it('sends a probe of up to 3 rows, then batches of at most 100', () => {
    const plan = planBatches(Array.from({ length: 250 }, (_, i) => row(i)));
    expect(plan.map((b) => [b.probe, b.rows.length])).toEqual([
      [true, 3],
      [false, 100],
      [false, 100],
      [false, 47],
    ]);
    expect(planBatches([row(1)]).map((b) => b.rows.length)).toEqual([1]);
  });

  it('never splits the rows of one event_id across the probe or a batch', () => {
    const legs = (i: number, event: string) => [
      row(i, { kind: 'transfer', amount: '-5', event_id: event }),
      row(i + 1, { kind: 'transfer', amount: '5', event_id: event }),
    ];
    const rows = [
      row(0),
      row(1),
      ...legs(2, 'a'),
      ...Array.from({ length: 97 }, (_, i) => row(10 + i)),
      ...legs(200, 'b'),
    ];
    const plan = planBatches(rows);
    expect(plan.map((b) => b.rows.length)).toEqual([2, 99, 2]);
    for (const event of ['a', 'b']) {
      const holding = plan.filter((b) => b.rows.some((r) => r.event_id === event));
      expect(holding).toHaveLength(1);
    }
    // Legs far apart in the file still travel together.
    const apart = planBatches([
      row(0, { event_id: 'c' }),
      ...Array.from({ length: 150 }, (_, i) => row(1 + i)),
      row(200, { event_id: 'c' }),
    ]);
    expect(apart[0]!.rows.map((r) => r.line)).toEqual([2, 202, 3]);
  });

  it('ends a batch early when its SQL would pass the server limit', () => {
    const long = Array.from({ length: 120 }, (_, i) => row(i, { note: 'n'.repeat(1000) }));
    for (const batch of planBatches(long)) {
      expect(batch.rows.length).toBeLessThanOrEqual(MAX_BATCH_ROWS);
      expect(buildInsert(batch.rows).length).toBeLessThan(100_000);
    }
  });
});

describe('eventProblems', () => {
  it('refuses transfer legs that do not sum to zero, exactly', () => {
    const t = (i: number, amount: string, event = 'e') =>
      row(i, { kind: 'transfer', amount, event_id: event });
    expect(eventProblems([t(0, '-0.10'), t(1, '0.05'), t(2, '0.05')])).toEqual([]);
    expect(eventProblems([t(0, '-500.00'), t(1, '499.999999')])[0]?.message).toContain(
      'do not sum to zero in USD',
    );
  });
});

describe('budget lines', () => {
  it('reads months as their first day and refuses what the table would', () => {
    const parsed = parseCsv(
      'budget_month,direction,category,currency,planned_value\n2026-11,spend,food,USD,400\n2026-11-15,spend,x,USD,1\n2026-11-01,saving,y,USD,-3\n2026-11-01,spend,food,USD,2\n',
    );
    const mapping = resolveMapping(parsed.header, new Map(), { set: BUDGET_FIELD_SET });
    const { rows, problems } = validateBudget(parsed.header, parsed.records, mapping);
    expect(rows.map((r) => r.budget_month)).toEqual(['2026-11-01']);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [3, 'budget_month'],
      [4, 'direction'],
      [4, 'planned_value'],
      [5, 'category'],
    ]);
    expect(budgetMonth('11/2026', undefined)).toBeUndefined();
    expect(budgetMonth('01.11.2026', 'DD.MM.YYYY')).toBe('2026-11-01');
  });

  it('a full batch is one statement the real guard accepts', async () => {
    const guard = await createGuard();
    const lines = Array.from({ length: MAX_BATCH_ROWS }, (_, i) => ({
      line: i + 2,
      budget_month: '2026-11-01',
      direction: 'spend',
      category: `c'${i}`,
      currency: 'USD',
      planned_value: '10.50',
      note: null,
    }));
    const result = guard.check(buildInsert(lines, BUDGET_TARGET), { mode: 'execute' });
    expect(result.ok ? 'ok' : result.error).toBe('ok');
  });
});

describe('idempotencyKey', () => {
  it('depends on the file, the options and the batch', () => {
    const a = idempotencyKey('f1', 'o', 0);
    expect(a).toBe(idempotencyKey('f1', 'o', 0));
    expect(
      new Set([a, idempotencyKey('f2', 'o', 0), idempotencyKey('f1', 'p', 0), idempotencyKey('f1', 'o', 1)])
        .size,
    ).toBe(4);
  });
});

describe('buildInsert on a real PostgreSQL', () => {
  it('stores hostile values exactly and skips rows already present', async () => {
    const db = await PGlite.create();
    try {
      await db.exec(`CREATE TABLE ledger_entries (
        entry_id serial PRIMARY KEY, ts timestamptz NOT NULL, account_id text NOT NULL, amount numeric NOT NULL,
        currency text NOT NULL, kind text NOT NULL, category text, counterparty text, note text, event_id text,
        external_id text UNIQUE)`);
      const hostile = [
        "O'Brien",
        "'; DROP TABLE ledger_entries; --",
        'back\\slash',
        '/* c */ -- d',
        '$$x$$',
        'a;b',
      ];
      const rows = hostile.map((note, i) => row(i, { note, counterparty: note, external_id: `h-${note}` }));
      const sql = buildInsert(rows);
      expect((await db.query(sql)).affectedRows).toBe(hostile.length);
      expect((await db.query(sql)).affectedRows).toBe(0);
      const stored = await db.query<{ note: string; counterparty: string; amount: string }>(
        'SELECT note, counterparty, amount::text AS amount FROM ledger_entries',
      );
      const sorted = [...hostile].sort();
      expect(stored.rows.map((r) => r.note).sort()).toEqual(sorted);
      expect(stored.rows.map((r) => r.counterparty).sort()).toEqual(sorted);
      expect(stored.rows.map((r) => r.amount).sort()).toEqual(rows.map((r) => r.amount).sort());
    } finally {
      await db.close();
    }
  });
});

describe('buildInsert and the service dialect', () => {
  it('a full batch of hostile rows is one statement the real guard accepts for /sql/execute', async () => {
    const guard = await createGuard();
    const hostile = "x' ; DROP TABLE ledger_entries; -- /* \\ $$ \"q\" E'\\n'";
    const rows = Array.from({ length: MAX_BATCH_ROWS }, (_, i) =>
      row(i, { note: `${hostile} ${i}`, counterparty: hostile, category: 'food', event_id: `e${i}` }),
    );
    for (const batch of [rows, ...planBatches(rows).map((b) => b.rows)]) {
      const result = guard.check(buildInsert(batch), { mode: 'execute' });
      expect(result.ok ? 'ok' : result.error).toBe('ok');
      if (result.ok) {
        expect(result.statements).toHaveLength(1);
        expect(result.statements[0]!.kind).toBe('insert');
      }
    }
  });
});
