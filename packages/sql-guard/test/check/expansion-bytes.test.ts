import { describe, expect, it } from 'vitest';
import { BOMB_FAMILIES, bomb, reportedBombs } from '../../fuzz/planner-bombs.js';
import { constantWeight, STEPS_PER_BYTE } from '../../src/check/expansion.js';
import { createGuard, defaultLimits } from '../../src/index.js';
import { allCorpora } from './corpus.js';
import { accepted, rejected } from './helpers.js';

/** A guard whose bytes bound is `maxExpandedBytes` (the node bound out of the way). */
const guardWith = (maxExpandedBytes: number) =>
  createGuard({ limits: { maxExpandedBytes, maxExpandedNodes: 10_000_000 } });
const createdGuard = await createGuard();
const literal = (n: number, c = 'a') => `'${c.repeat(n)}'`;

describe('statement_too_complex: the bytes PostgreSQL builds folding constants (maxExpandedBytes)', () => {
  it('has a default of a few MiB that the longest flat statements pass', () => {
    expect(defaultLimits.maxExpandedBytes).toBe(4 * 1024 * 1024);
    const long = defaultLimits.maxSqlLength - 200;
    accepted(`SELECT ${literal(long)}`);
    accepted(`SELECT note = ${literal(long)} FROM ledger_entries`);
    accepted(
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ('2026-01-01', 'cash', 1, 'EUR', 'spend', ${literal(long)})`,
      'execute',
    );
    accepted(`SELECT ${'9'.repeat(long)}`);
  });

  it('weighs a literal by its length: one copied through a derived column is refused once the copies pass the bound', async () => {
    const g = await guardWith(1_000_000);
    const refs = (n: number) =>
      `SELECT ${Array.from({ length: n }, () => 't.s').join(', ')} FROM (SELECT ${literal(10_000)} AS s) AS t`;
    expect(g.check(refs(50), { mode: 'query' }).ok).toBe(true);
    const r = g.check(refs(150), { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('statement_too_complex');
    if (r.ok) return;
    expect(r.error.message).toMatch(/bytes/);
    expect(r.error.message).toMatch(/\bt\.s\b/);
    expect(r.error.hint).toMatch(/t's column s\b/);
    expect(r.error.hint).toMatch(/MATERIALIZED/);
  });

  it('names the literal and points at it when no column carries it', () => {
    const sql = `SELECT ${Array.from({ length: 250 }, () => literal(390, 'q')).join(' || ')}`;
    const e = rejected(sql, 'statement_too_complex');
    expect(e.message).toMatch(/qqqqqqqqqqqqqqqq\.\.\. of 390 bytes/);
    expect(e.hint).toMatch(/qqqq/);
    expect(sql.slice(e.position!.offset, e.position!.offset + 3)).toBe("'qq");
  });

  it('refuses every shape of the issue-35 report: the 90 kB doubling from 3 levels, the 30,000-digit numeric, LIKE over long literals', () => {
    const refusedFrom: Record<string, number[]> = {};
    for (const b of reportedBombs()) {
      const r = createdGuard.check(b.sql, { mode: 'query' });
      if (!r.ok) {
        expect(r.error.code).toBe('statement_too_complex');
        refusedFrom[b.family] = [...(refusedFrom[b.family] ?? []), b.depth];
      }
    }
    expect(refusedFrom.concat).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(refusedFrom.numeric).toEqual([1, 2, 3, 4, 5, 6]);
    expect(refusedFrom.like).toEqual([1, 2, 10, 50, 200]);
    expect(refusedFrom.ilike).toEqual([1, 2, 10, 50, 200]);
  });

  it('weighs matching and multiplying by the product of the operands, and plain comparison by their sum', async () => {
    const g = await guardWith(1_000_000);
    const n = 10_000;
    const pair = (op: string) =>
      `SELECT t.a ${op} t.b FROM (SELECT ${literal(n)} AS a, ${literal(n)} AS b) AS t`;
    // n * n / STEPS_PER_BYTE = 1.56 M > 1 M: refused; = is linear.
    expect((n * n) / STEPS_PER_BYTE).toBeGreaterThan(1_000_000);
    for (const op of ['LIKE', 'ILIKE', 'NOT LIKE', '*', '/', '%'])
      expect(g.check(pair(op), { mode: 'query' }).ok, op).toBe(false);
    for (const op of ['=', '<', '||']) expect(g.check(pair(op), { mode: 'query' }).ok, op).toBe(true);
    // LIKE against a column is not folded: only the literal counts.
    expect(g.check(`SELECT note LIKE ${literal(n)} FROM ledger_entries`, { mode: 'query' }).ok).toBe(true);
  });

  it('weighs a number written with an exponent by its digits', () => {
    expect(constantWeight('1e1000')).toBe(1006);
    expect(constantWeight('-2.5E+30')).toBe(38);
    expect(constantWeight(' 1.e3 ')).toBe(9);
    expect(constantWeight('5e999 ')).toBe(1005);
    expect(constantWeight('note e5')).toBe(7);
    expect(constantWeight('e5')).toBe(2);
    expect(constantWeight('12e')).toBe(3);
    expect(constantWeight('ü')).toBe(2);
    // A long digit string is scanned once (a regular expression would backtrack quadratically).
    expect(constantWeight(`${'9'.repeat(99_000)}x`)).toBe(99_001);
  });

  it('weighs repeat, lpad and rpad by their literal count', async () => {
    const g = await createGuard({
      dialect: {
        relations: { t: { operations: ['select'], columns: ['a'] } },
        functions: ['repeat', 'lpad', 'rpad'],
        castTypes: ['text'],
      },
    });
    for (const f of ['repeat', 'lpad', 'rpad']) {
      expect(g.check(`SELECT ${f}('ab', 100)`, { mode: 'query' }).ok, f).toBe(true);
      const r = g.check(`SELECT ${f}('ab', 100000000)`, { mode: 'query' });
      expect(!r.ok && r.error.code, f).toBe('statement_too_complex');
    }
  });

  it('generates every family of the fuzzer as SQL that PostgreSQL parses', () => {
    for (const family of BOMB_FAMILIES) {
      const r = createdGuard.check(bomb(family, 10, 2).sql, { mode: 'query' });
      expect(r.ok || r.error.code !== 'syntax_error', family).toBe(true);
    }
  });

  it('keeps every statement of the corpora at a tenth of the default or less', async () => {
    const tenth = await guardWith(Math.floor(defaultLimits.maxExpandedBytes / 10));
    const all = allCorpora;
    const refused = all.flatMap(([sql, mode]) => {
      const r = tenth.check(sql, { mode });
      return r.ok ? [] : [`${mode} ${sql.slice(0, 80)}: ${r.error.message}`];
    });
    expect(refused).toEqual([]);
  });
});
