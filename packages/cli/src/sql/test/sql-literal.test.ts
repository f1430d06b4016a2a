import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteLiteral } from '../literal.js';

const HOSTILE = [
  "O'Brien",
  "''",
  "'; DROP TABLE ledger_entries; --",
  'back\\slash\\',
  "\\'",
  'semi;colon',
  '-- not a comment',
  '/* not a comment */',
  '$$dollar$$',
  '"quoted"',
  'line\nbreak\r\n',
  'tab\there',
  'emoji 💸 and ünïcödé',
  "E'\\x41'",
];

describe('quoteLiteral', () => {
  it('doubles single quotes and nothing else', () => {
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral('a\\b')).toBe("'a\\b'");
    expect(quoteLiteral('')).toBe("''");
  });

  it('refuses NUL, which PostgreSQL text cannot hold', () => {
    expect(() => quoteLiteral('a\u0000b')).toThrow(RangeError);
  });

  // A real PostgreSQL parser (PGlite, standard_conforming_strings=on) reads every literal back unchanged.
  describe('round trip through PostgreSQL', () => {
    let db: PGlite;
    beforeAll(async () => {
      db = await PGlite.create();
    });
    afterAll(async () => {
      await db.close();
    });

    it.each(HOSTILE)('%j comes back exactly', async (value) => {
      const result = await db.query<{ v: string; n: number }>(`SELECT ${quoteLiteral(value)} AS v, 1 AS n`);
      expect(result.rows).toEqual([{ v: value, n: 1 }]);
    });
  });
});
