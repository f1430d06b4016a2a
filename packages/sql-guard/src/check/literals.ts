import type { Source } from './source.js';

/**
 * Where the parse tree's string constants begin, as ascending UTF-16 indexes: the `location` of every
 * A_Const that holds a string or bit string. Used only to decide that scanning can be skipped
 * (lexical.ts, literalsExplainTriggers).
 */
export function stringConstStarts(tree: unknown, source: Source): number[] {
  const bytes: number[] = [];
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (key === 'A_Const' && typeof child === 'object' && child !== null) {
        const c = child as Record<string, unknown>;
        if (
          (c.sval !== undefined || c.bsval !== undefined) &&
          typeof c.location === 'number' &&
          c.location >= 0
        )
          bytes.push(c.location);
        continue;
      }
      if (typeof child === 'object') stack.push(child);
    }
  }
  return indexesOfBytes(bytes, source);
}

/** Byte offsets (in any order; sorted in place) as ascending UTF-16 indexes. */
export function indexesOfBytes(bytes: number[], source: Source): number[] {
  bytes.sort((a, b) => a - b);
  return bytes.map((b) => source.index(b));
}
