import type { Position } from '../types.js';

/** The 0-based offset's 1-based line and column in `text` (UTF-16 code units, as JavaScript indexes). */
export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { offset, line, column: offset - lastBreak };
}

/** PostgreSQL's error position (1-based, in characters) -> a 0-based UTF-16 offset into `text`. */
export function offsetOfCharacter(text: string, position: number): number {
  let offset = 0;
  for (let n = 1; n < position && offset < text.length; n++) {
    offset += (text.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
  }
  return offset;
}
