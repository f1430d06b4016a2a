import { readFileSync, writeFileSync } from 'node:fs';
import {
  ActionSchema,
  CHANGE_GROUP_HEADER,
  CHANGE_LABEL_HEADER,
  IDEMPOTENCY_HEADER,
  MAX_CHANGE_LABEL,
  SqlResultDataSchema,
  WORKSPACE_HEADER,
  successEnvelope as wireSuccessEnvelope,
} from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as client from '../../http/client.js';
import { validator } from '../check.js';
import { checkOf } from '../json-schema.js';
import { action, failureEnvelope, sqlResultData, successEnvelope } from '../wire.js';

/** The hand-written checks stand for the wire's zod schemas: same verdicts, same data, on answers and their variants. */

const sqlResult = {
  workspaceId: '0b6f1c1e-0000-4000-8000-000000000001',
  committed: true,
  statements: [
    {
      index: 0,
      command: 'SELECT',
      columns: [
        { name: 'id', type: 'uuid' },
        { name: 'amount', type: 'numeric' },
      ],
      rows: [
        { id: 'a', amount: '12.50', extra: { nested: [1, 2] } },
        { id: 'b', amount: null },
      ],
      rowCount: 2,
      returnedRowCount: 2,
      totalRowCount: 2,
      truncated: false,
    },
  ],
  limits: { maxReturnedRows: 500, maxAffectedRows: 1000, deadlineMs: 5000, maxResultBytes: 1_000_000 },
  clock: { now: '2026-03-01T10:00:00.000Z', today: '2026-03-01', timeZone: 'Europe/Berlin' },
  changeId: 'chg_1',
  shortId: 'chg1',
};

const anAction = {
  name: 'get_schema',
  method: 'GET',
  url: 'http://127.0.0.1:8787/v1/schema',
  auth: 'ApiKey',
  input: { type: 'object' },
};

type Json = unknown;

/** The value with one change at `path`: a key removed, a wrong type, null, an unknown key added. */
function variants(value: Json, path: string[] = []): { name: string; value: Json }[] {
  const out: { name: string; value: Json }[] = [];
  const at = (v: Json, p: string[], replace: (x: Json) => Json | typeof REMOVE): Json => {
    if (p.length === 0) return replace(v);
    const [head, ...rest] = p as [string, ...string[]];
    if (Array.isArray(v)) return v.map((x, i) => (String(i) === head ? at(x, rest, replace) : x));
    const o = { ...(v as Record<string, Json>) };
    const next = at(o[head], rest, replace);
    if (next === REMOVE) delete o[head];
    else o[head] = next;
    return o;
  };
  const walk = (v: Json, p: string[]) => {
    const name = p.join('.') || '(root)';
    for (const [kind, replace] of [
      ['removed', () => REMOVE],
      ['null', () => null],
      ['a string', () => 'x'],
      ['a number', () => 1.5],
      ['a large integer', () => 2 ** 60],
      ['a boolean', () => true],
      ['an array', () => []],
      ['an object', () => ({})],
    ] as const) {
      out.push({ name: `${name} ${kind}`, value: at(value, p, replace) });
    }
    if (v && typeof v === 'object') {
      if (!Array.isArray(v))
        out.push({
          name: `${name} + unknown key`,
          value: at(value, p, (x) => ({ ...(x as object), zz: 1 })),
        });
      for (const key of Object.keys(v)) walk((v as Record<string, Json>)[key], [...p, key]);
    }
  };
  walk(value, path);
  return out;
}
const REMOVE = Symbol('remove');

function expectSame(
  ours: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  theirs: z.ZodType,
  sample: Json,
) {
  const cases = [{ name: 'as sent', value: sample }, ...variants(sample)];
  let rejected = 0;
  for (const { name, value } of cases) {
    const a = ours.safeParse(value);
    const b = theirs.safeParse(value);
    expect({ name, success: a.success }).toEqual({ name, success: b.success });
    if (a.success && b.success) expect({ name, data: a.data }).toEqual({ name, data: b.data });
    if (!a.success) rejected++;
  }
  // the variants do reach the checks: most of them are wrong
  expect(rejected).toBeGreaterThan(cases.length / 3);
}

/** The wire's SQL result schema as JSON Schema, without what a check does not use (its words, `$schema`). */
function projection(schema: z.ZodType): unknown {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== 'description' && key !== '$schema')
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  return strip(z.toJSONSchema(schema));
}

describe('the SQL result projection (src/checks/sql-result.schema.json)', () => {
  const file = new URL('../sql-result.schema.json', import.meta.url);

  it('is generated from the wire’s SqlResultDataSchema (EXPENSE_WRITE_PROJECTIONS=1 writes it again)', () => {
    const generated = projection(SqlResultDataSchema);
    if (process.env.EXPENSE_WRITE_PROJECTIONS === '1')
      writeFileSync(file, `${JSON.stringify(generated, null, 2)}\n`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(generated);
  });

  it('has a check for every construct in it, and refuses one it does not know', () => {
    expect(() => checkOf({ type: 'number' })).toThrow(/no check/);
    expect(() =>
      checkOf({ type: 'object', properties: { a: { type: 'string', format: 'date' } as never } }),
    ).not.toThrow();
    expect(() => checkOf({ type: 'null' })).toThrow(/no check/);
  });
});

describe('hand-written checks against the wire schemas', () => {
  it('SqlResultData: the check built from the generated projection gives the same verdict and data for an answer and every one-change variant of it', () => {
    expectSame(sqlResultData, SqlResultDataSchema, sqlResult);
    expectSame(sqlResultData, SqlResultDataSchema, {
      ...sqlResult,
      committed: false,
      statements: [],
      changeId: undefined,
      shortId: undefined,
      confirmToken: 'tok',
      confirmTokenExpiresAt: '2026-03-01T10:10:00.000Z',
    });
  });

  it('Action', () => {
    expectSame(validator(action), ActionSchema, anAction);
    expectSame(validator(action), ActionSchema, {
      name: 'x',
      method: 'POST',
      url: 'u',
      urlTemplate: 't',
      auth: 'none',
    });
  });

  it('the success envelope, with and without a data check', () => {
    const envelope = { ok: true, data: sqlResult, instructions: ['Next: …'], actions: [anAction] };
    expectSame(successEnvelope(sqlResultData), wireSuccessEnvelope(SqlResultDataSchema), envelope);
    expectSame(successEnvelope(undefined), wireSuccessEnvelope(z.unknown()), {
      ...envelope,
      data: { any: 1 },
    });
  });

  it('the failure envelope: an unknown code from a newer server still parses', () => {
    const failure = z.object({
      ok: z.literal(false),
      error: z.object({
        code: z.string(),
        message: z.string(),
        hint: z.string().optional(),
        retryable: z.boolean().optional(),
        details: z.record(z.string(), z.unknown()).optional(),
      }),
      actions: z.array(ActionSchema).optional(),
    });
    const sample = {
      ok: false,
      error: { code: 'a_code_from_the_future', message: 'm', hint: 'h', retryable: false, details: { a: 1 } },
      instructions: [],
      actions: [anAction],
    };
    expectSame(failureEnvelope, failure, sample);
    expect(failureEnvelope.safeParse(sample).success).toBe(true);
  });

  it("the client's header names and label limit are the wire's", () => {
    expect(client.WORKSPACE_HEADER).toBe(WORKSPACE_HEADER.toLowerCase());
    expect(client.IDEMPOTENCY_HEADER).toBe(IDEMPOTENCY_HEADER.toLowerCase());
    expect(client.CHANGE_GROUP_HEADER).toBe(CHANGE_GROUP_HEADER.toLowerCase());
    expect(client.CHANGE_LABEL_HEADER).toBe(CHANGE_LABEL_HEADER.toLowerCase());
    expect(client.MAX_CHANGE_LABEL).toBe(MAX_CHANGE_LABEL);
  });
});
