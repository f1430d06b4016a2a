import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointIndex,
  isAscii,
  offsetOfCharacter,
  positionAt,
  seekByte,
  utf8Length,
} from '../../src/text/offsets.js';

const text = 'a€😀\nü';

/** Plain reference implementations (the run side's former own copies), to check the shared module against. */
function referencePositionAt(s: string, offset: number) {
  const before = s.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { offset, line, column: offset - lastBreak };
}
function referenceOffsetOfCharacter(s: string, position: number): number {
  let offset = 0;
  for (let n = 1; n < position && offset < s.length; n++)
    offset += (s.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
  return offset;
}

describe('text/offsets', () => {
  it('converts between UTF-16 units, UTF-8 bytes and code points', () => {
    expect(isAscii('SELECT 1')).toBe(true);
    expect(isAscii(text)).toBe(false);
    expect([0, 1, 2, 4, 5, 6].map((i) => utf8Length(text, i))).toEqual([0, 1, 4, 8, 9, 11]);
    expect([0, 1, 4, 8, 9, 11].map((b) => seekByte(text, b).index)).toEqual([0, 1, 2, 4, 5, 6]);
    expect(seekByte(text, 100)).toEqual({ index: 6, byte: 11 });
    expect([0, 1, 2, 3, 4, 5].map((n) => codePointIndex(text, n))).toEqual([0, 1, 2, 4, 5, 6]);
    expect(offsetOfCharacter(text, 4)).toBe(4);
    expect(positionAt(text, 5)).toEqual({ offset: 5, line: 2, column: 1 });
  });

  it('seekByte inverts utf8Length, and counting on from a known pair gives the same answer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(), fc.nat(), (s, a, b) => {
        const i = a % (s.length + 1);
        const j = Math.max(i, b % (s.length + 1));
        const at = seekByte(s, utf8Length(s, i)).index;
        // An index inside a surrogate pair moves to the pair's end; elsewhere the conversion is exact.
        expect(at === i || at === i + 1).toBe(true);
        const from = seekByte(s, utf8Length(s, i));
        expect(seekByte(s, utf8Length(s, j), from.byte, from.index)).toEqual(seekByte(s, utf8Length(s, j)));
      }),
    );
  });

  it('agrees with plain reference implementations of PostgreSQL positions and lines/columns', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(50), (s, n) => {
        expect(offsetOfCharacter(s, n + 1)).toBe(referenceOffsetOfCharacter(s, n + 1));
        const offset = Math.min(n, s.length);
        expect(positionAt(s, offset)).toEqual(referencePositionAt(s, offset));
      }),
    );
  });
});
