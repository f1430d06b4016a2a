import { describe, expect, it } from 'vitest';
import { errorOffset } from '../error-position.js';
import { pointAt } from '../pointer.js';
import { blankComments, scriptMayWrite, splitStatements } from '../statements.js';

describe('splitStatements', () => {
  it('splits at semicolons outside literals and keeps offsets', () => {
    const sql = "SELECT 'a;b' AS x;\n  UPDATE t SET n = 'it''s;';";
    const spans = splitStatements(sql);
    expect(spans.map((s) => s.text)).toEqual(["SELECT 'a;b' AS x", "UPDATE t SET n = 'it''s;'"]);
    expect(sql.slice(spans[1]!.offset, spans[1]!.offset + 6)).toBe('UPDATE');
  });
});

describe('blankComments', () => {
  it('blanks comments outside literals, keeping length and lines', () => {
    const sql = "-- don't\nSELECT '--x' /* a /* nested */ b */ AS y; -- end";
    const out = blankComments(sql);
    expect(out).toHaveLength(sql.length);
    expect(out.split('\n')).toHaveLength(2);
    expect(out.replace(/\s+/g, ' ').trim()).toBe("SELECT '--x' AS y;");
  });
});

describe('scriptMayWrite', () => {
  it.each([
    ["-- read only, don't ask\nSELECT 1", false],
    ['/* delete nothing */ SELECT 1', false],
    ['-- tidy\nDELETE FROM t', true],
    ['SELECT 1', false],
    ['with x as (select 1) select * from x', false],
    ["SELECT 'insert into t' AS note", false],
    ['SELECT updated_at FROM ledger_entries', false],
    ['SELECT 1; SELECT 2;', false],
    ['INSERT INTO t VALUES (1)', true],
    ['SELECT 1; delete from ledger_entries', true],
    ['WITH d AS (DELETE FROM ledger_entries RETURNING 1) SELECT count(*) FROM d', true],
    ['  update ledger_entries set note = null', true],
    ["SELECT 'unterminated", false],
  ])('%s -> %s', (sql, writes) => {
    expect(scriptMayWrite(sql)).toBe(writes);
  });
});

describe('pointAt', () => {
  it('puts the caret under the offset on its own line', () => {
    const sql = 'SELECT amount\nFROM ledger_entries\nWHERE lower(note) = 1';
    const offset = sql.indexOf('lower');
    expect(pointAt(sql, offset)).toEqual(['LINE 3: WHERE lower(note) = 1', '              ^']);
  });
});

describe('errorOffset', () => {
  const sql = 'SELECT 1;\nSELECT nope FROM ledger_entries';
  it('uses the guard offset over the whole text', () => {
    expect(errorOffset(sql, { position: { offset: 17, line: 2, column: 8 } })).toBe(17);
  });
  it("maps PostgreSQL's 1-based position within a script's statement", () => {
    expect(errorOffset(sql, { position: '8', statementIndex: 1 })).toBe(sql.indexOf('nope'));
  });
  it('is undefined without a position', () => {
    expect(errorOffset(sql, { sqlstate: '23505' })).toBeUndefined();
  });
});
