import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import type { Dialect } from '../../src/types.js';

/** Hints name the relations, functions and types of the guard's own dialect, never the default one's. */
const dialect: Dialect = {
  relations: { items: { operations: ['select'], columns: ['id', 'label'] } },
  functions: ['count'],
  castTypes: ['text'],
};
const guard = await createGuard({ dialect });

function hintOf(sql: string): string | undefined {
  const r = guard.check(sql, { mode: 'query' });
  if (r.ok) throw new Error(`accepted: ${sql}`);
  return r.error.hint;
}

describe('hints speak of the dialect in use', () => {
  it('lists the dialect functions when refusing a function', () => {
    expect(hintOf('SELECT sum(id) FROM items')).toBe('allowed functions: COUNT');
    expect(hintOf('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) FROM items')).toBe(
      'allowed functions: COUNT',
    );
    expect(hintOf('SELECT round(id) FROM items')).toBe(
      'return the exact value and round on the client; allowed functions: COUNT',
    );
    expect(hintOf('SELECT pg_catalog.sum(id) FROM items')).toBe('allowed functions: COUNT');
    expect(hintOf('SELECT pg_catalog.count(id) FROM items')).toBe('write count(...) without the schema');
    expect(hintOf('SELECT now()')).toBe("write the date as a string literal, e.g. '2026-08-09'");
  });

  it('lists the dialect relations and types', () => {
    expect(hintOf('SELECT * FROM ledger_entries')).toBe('available relations: items');
    expect(hintOf('SELECT * FROM public.items')).toBe('write items without the schema');
    expect(hintOf('SELECT * FROM generate_series(1, 2)')).toBe("select from the dialect's relations: items");
    expect(hintOf("SELECT '1'::integer")).toBe('allowed types: text');
    expect(hintOf("SELECT 'x'::regclass")).toBe(
      'catalog lookups (reg* types) are not available; allowed types: text',
    );
  });

  it('lists the columns of the dialect relation', () => {
    expect(hintOf('SELECT i.amount FROM items i')).toBe('columns of i: id, label');
  });

  it('says "none" for an empty list', async () => {
    const bare = await createGuard({
      dialect: {
        relations: { items: { operations: ['select'], columns: ['id'] } },
        functions: [],
        castTypes: [],
      },
    });
    const r = bare.check('SELECT count(*) FROM items', { mode: 'query' });
    expect(!r.ok && r.error.hint).toBe('allowed functions: none');
  });
});
