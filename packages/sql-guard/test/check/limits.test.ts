import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import { accepted, guard, rejected } from './helpers.js';

describe('limits and hostile sizes (no throw, no crash)', () => {
  it('rejects inputs over maxSqlLength before parsing', async () => {
    rejected(`SELECT ${'1'.repeat(100_001)}`, 'sql_too_long');
    const small = await createGuard({ limits: { maxSqlLength: 30, maxStatements: 2 } });
    const r = small.check('SELECT amount FROM ledger_entries', { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('sql_too_long');
    const s = small.check('SELECT 1;SELECT 2;SELECT 3', { mode: 'script' });
    expect(!s.ok && s.error.code).toBe('too_many_statements');
  });

  it('rejects deep nesting with a code, before it can overflow the parser or the walk', () => {
    rejected(`SELECT ${'('.repeat(20_000)}1${')'.repeat(20_000)}`, 'construct_not_allowed');
    rejected(`SELECT 1${'+1'.repeat(40_000)}`, 'construct_not_allowed');
    rejected(`SELECT ${'+-'.repeat(20_000)}1`, 'construct_not_allowed');
    rejected(`SELECT ${'(SELECT '.repeat(5000)}1${')'.repeat(5000)}`, 'construct_not_allowed');
    rejected(`SELECT ${'NOT '.repeat(20_000)}true`, 'construct_not_allowed');
    rejected(`SELECT 1${'::int'.repeat(15_000)}`, 'construct_not_allowed');
    rejected(`SELECT 1 ${'UNION SELECT 1 '.repeat(6000)}`, 'construct_not_allowed');
    // Short inputs are parsed directly; the walk's depth limit applies.
    rejected(`SELECT 1${'+1'.repeat(600)}`, 'construct_not_allowed');
    rejected(`SELECT ${'coalesce('.repeat(300)}1${')'.repeat(300)}`, 'construct_not_allowed');
    // The parser still works afterwards.
    accepted('SELECT 1 + 1');
  });

  it('repeated hostile inputs do not wear the parser down', () => {
    for (let i = 0; i < 40; i++) rejected(`SELECT ${'+-'.repeat(9000)}1`, 'construct_not_allowed');
    accepted('SELECT sum(amount) FROM ledger_entries');
  });

  it('accepts a long but flat statement (a 100-row batch insert)', () => {
    const rows = Array.from(
      { length: 100 },
      (_, i) =>
        `('2026-08-${String((i % 28) + 1).padStart(2, '0')}', ${i}.50, 'EUR', 'food', 'lunch ${i}', 'cash', 'spend')`,
    );
    const sql = `INSERT INTO ledger_entries (ts, amount, currency, category, note, account_id, kind) VALUES ${rows.join(', ')} RETURNING entry_id`;
    expect(sql.length).toBeGreaterThan(5000);
    accepted(sql, 'execute');
  });

  it('never throws on binary garbage', () => {
    const bytes = Array.from({ length: 2000 }, (_, i) => String.fromCharCode((i * 7919) % 0xd7ff)).join('');
    const r = guard.check(bytes, { mode: 'script' });
    expect(r.ok).toBe(false);
  });
});

describe('inputs the PostgreSQL lexer handles in quadratic time', () => {
  it('rejects long runs of + and - outside strings before lexing, and keeps them as data inside strings', () => {
    const e = rejected(`SELECT 1 ${'+-'.repeat(30_000)} 1`, 'construct_not_allowed');
    expect(e.position?.offset).toBe(9);
    const pad = 'x'.repeat(2100);
    accepted(`SELECT '${'-+'.repeat(200)}', '${pad}'`);
    rejected(`SELECT '${'-+'.repeat(200)}\\', '${pad}'`, 'construct_not_allowed');
  });
});
