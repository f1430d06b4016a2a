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

/** The `sval` of a `String` node, or undefined. */
export function stringValue(value: unknown): string | undefined {
  const entry = single(value);
  if (entry?.[0] !== 'String' || !isFields(entry[1])) return undefined;
  const sval = entry[1].sval;
  return typeof sval === 'string' ? sval : undefined;
}
