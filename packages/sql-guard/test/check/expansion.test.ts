import { describe, expect, it } from 'vitest';
import { createGuard, defaultLimits } from '../../src/index.js';
import { allCorpora } from './corpus.js';
import { EXPANSION_FORMS, expansionAttack } from './expansion-attacks.js';
import { accepted, rejected } from './helpers.js';

/** A guard whose bound is `maxExpandedNodes`, to find where a statement's expanded size lies. */
const guardWith = (maxExpandedNodes: number) => createGuard({ limits: { maxExpandedNodes } });

describe('statement_too_complex: the size of the trees PostgreSQL builds after inlining', () => {
  it('has a default bound that every flat statement within maxSqlLength passes', () => {
    expect(defaultLimits.maxExpandedNodes).toBeGreaterThan(0);
    // The densest flat text: an IN list of one-character literals, as long as maxSqlLength allows.
    const items = Math.floor((defaultLimits.maxSqlLength - 20) / 2);
    accepted(`SELECT 1 IN (${Array.from({ length: items }, () => '1').join(',')})`);
    accepted(`SELECT ${Array.from({ length: 1664 }, () => 'amount').join(',')} FROM ledger_entries`);
  });

  it.each(EXPANSION_FORMS)('refuses the %s form at 20 levels, in every mode that takes a read', (form) => {
    const sql = expansionAttack(form, 20);
    expect(sql.length).toBeLessThan(2000);
    const e = rejected(sql, 'statement_too_complex');
    expect(e.message).toMatch(/expression nodes|bytes/);
    expect(e.hint).toEqual(expect.any(String));
    const s = rejected(`SELECT 1; ${sql}`, 'statement_too_complex', 'script');
    expect(s.statementIndex).toBe(1);
  });

  it('accepts the same forms a few levels deep', () => {
    for (const form of EXPANSION_FORMS) accepted(expansionAttack(form, 3));
  });

  it('names the derived table whose column is repeated, at the reference that passes the bound', async () => {
    const small = await guardWith(40);
    const sql =
      'SELECT t.s || t.s || t.s AS s FROM (SELECT note || note || note || note || note AS s FROM ledger_entries) AS t';
    const r = small.check(sql, { mode: 'query' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('statement_too_complex');
    expect(r.error.message).toMatch(/\bt\.s\b/);
    expect(r.error.hint).toMatch(/\bt\b/);
    expect(r.error.hint).toMatch(/MATERIALIZED/);
    // The position is a reference to t.s.
    expect(sql.slice(r.error.position!.offset, r.error.position!.offset + 3)).toBe('t.s');
    // The same statement fits a bound above its expanded size.
    expect((await guardWith(200)).check(sql, { mode: 'query' }).ok).toBe(true);
  });

  it('names the CTE whose column is repeated', async () => {
    const r = (await guardWith(40)).check(
      'WITH big AS (SELECT note || note || note || note || note AS s FROM ledger_entries) SELECT s || s || s || s FROM big',
      { mode: 'query' },
    );
    expect(!r.ok && r.error.code).toBe('statement_too_complex');
    expect(!r.ok && r.error.hint).toMatch(/\bbig\b/);
  });

  it('counts a copy of a NOT MATERIALIZED CTE per reference, and none for a MATERIALIZED one', async () => {
    const body = 'SELECT note || note || note || note || note AS s FROM ledger_entries';
    const twice = (m: string) => `WITH c AS ${m}(${body}) SELECT 1 FROM c x, c y, c z, c w`;
    const small = await guardWith(60);
    const r = small.check(twice('NOT MATERIALIZED '), { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('statement_too_complex');
    expect(!r.ok && r.error.hint).toMatch(/\bc\b/);
    expect(small.check(twice('MATERIALIZED '), { mode: 'query' }).ok).toBe(true);
  });

  it('accepts the doubling through MATERIALIZED CTEs, which PostgreSQL plans once each', () => {
    const items = Array.from(
      { length: 20 },
      (_, i) => `a${i + 1} AS MATERIALIZED (SELECT s || s AS s FROM a${i})`,
    );
    accepted(
      `WITH a0 AS MATERIALIZED (SELECT note AS s FROM ledger_entries), ${items.join(', ')} SELECT s FROM a20`,
    );
  });

  it('counts the copies the parser makes of BETWEEN and IN operands', () => {
    const between = rejected(expansionAttack('between', 20), 'statement_too_complex');
    expect(between.hint).toMatch(/BETWEEN/);
    const inList = rejected(expansionAttack('in', 20), 'statement_too_complex');
    expect(inList.hint).toMatch(/IN/);
  });

  it('counts one copy for the literals of an IN list (one = ANY(array)), and one per other item or for a row', async () => {
    // 30,000 literals: one comparison with an array, as PostgreSQL builds it.
    accepted(`SELECT 1 IN (${Array.from({ length: 30_000 }, () => '1').join(',')})`);
    const small = await guardWith(60);
    const wide = 'note || note || note || note || note || note || note || note || note || note';
    const literals = `SELECT (${wide}) IN ('a', 'b', 'c', 'd', 'e', 'f') FROM ledger_entries`;
    expect(small.check(literals, { mode: 'query' }).ok).toBe(true);
    const columns = `SELECT (${wide}) IN (note, category, counterparty, currency, kind, 'f') FROM ledger_entries`;
    const r = small.check(columns, { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('statement_too_complex');
    const rows = `SELECT (${wide}, 1) IN (('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5)) FROM ledger_entries`;
    const row = small.check(rows, { mode: 'query' });
    expect(!row.ok && row.error.code).toBe('statement_too_complex');
  });

  it('refuses in execute mode too (a write reading a derived table)', () => {
    const select = expansionAttack('concat', 20);
    rejected(
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) SELECT now_ts, 'cash', 1, 'EUR', 'spend', s FROM (SELECT DATE '2026-01-01' AS now_ts) d, ${select.slice('SELECT s FROM '.length)}`,
      'statement_too_complex',
      'execute',
    );
  });

  it('keeps every statement of the corpora at a tenth of the default bound or less', async () => {
    const tenth = await guardWith(Math.floor(defaultLimits.maxExpandedNodes / 10));
    const all = allCorpora;
    const refused = all.flatMap(([sql, mode]) => {
      const r = tenth.check(sql, { mode });
      return r.ok ? [] : [`${mode} ${sql.slice(0, 80)}: ${r.error.code}`];
    });
    expect(refused).toEqual([]);
  });
});
