/** Helpers for libpg-query's JSON parse tree: nodes are `{ TypeName: { ...fields } }`. */

export type Fields = Record<string, unknown>;

/** The one key and value of a wrapped node, or undefined for anything else. */
export function single(value: unknown): [string, unknown] | undefined {
  if (!isFields(value)) return undefined;
  let found: [string, unknown] | undefined;
  for (const key in value) {
    if (found) return undefined;
    found = [key, value[key]];
  }
  return found;
}

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type of a wrapped node (its one key), or undefined for anything else; allocates nothing. */
export function nodeType(value: unknown): string | undefined {
  if (!isFields(value)) return undefined;
  let found: string | undefined;
  for (const key in value) {
    if (found !== undefined) return undefined;
    found = key;
  }
  return found;
}

/** The `sval` of a `String` node, or undefined. */
export function stringValue(value: unknown): string | undefined {
  if (nodeType(value) !== 'String') return undefined;
  const inner = (value as Fields).String;
  if (!isFields(inner)) return undefined;
  const sval = inner.sval;
  return typeof sval === 'string' ? sval : undefined;
}
