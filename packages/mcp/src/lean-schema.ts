import type { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * Strips what costs context tokens and says nothing to a model: `$schema`, `propertyNames: {type: string}`,
 * empty `properties`,
 * empty `additionalProperties` (any value), the regex behind `format: date`, an integer's safe-range bounds, a string enum's `type`, and in
 * output schemas
 * `additionalProperties: false` and nested `required` (results may carry more than they declare, e.g. the
 * API's `limits`). Validation is unchanged: the zod schema still validates.
 */
function strip(node: unknown, output: boolean, depth: number, words = true): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, output, depth + 1, words));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema') continue;
    if (key === 'propertyNames') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null && !Object.keys(value).length)
      continue;
    if (
      key === 'additionalProperties' &&
      typeof value === 'object' &&
      value !== null &&
      !Object.keys(value).length
    )
      continue;
    if (key === 'additionalProperties' && value === false && output) continue;
    if (key === 'pattern' && typeof (node as Json).format === 'string') continue;
    if (key === 'required' && output && depth > 0) continue;
    if (key === 'description' && !words && typeof value === 'string') continue;
    // An enum's values say their type.
    if (key === 'type' && value === 'string' && Array.isArray((node as Json).enum)) continue;
    // zod's bounds of an integer (the safe range): `integer` says as much to a model.
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER)
      continue;
    out[key] =
      key === 'properties' ? strip(value, output, depth, words) : strip(value, output, depth + 1, words);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface JsonSchemaFace {
  input: (options: unknown) => Json;
  output: (options: unknown) => Json;
}

/**
 * The same zod schema, advertised leanly in tools/list (see strip); without its descriptions when `words` is
 * false (a schema reused from the wire, whose words the tool's own description and get_schema already give).
 */
export function lean<T extends z.ZodType>(schema: T, kind: 'input' | 'output', words = true): T {
  const std = schema['~standard'] as unknown as { jsonSchema: JsonSchemaFace } & Record<string, unknown>;
  // Converted once per options, not per McpServer: a stateless /mcp builds a server (and converts its output
  // schemas) for every message. Frozen, so a consumer that changed the shared object would fail loudly.
  const converted = new Map<string, Json>();
  const once = (face: 'input' | 'output', o: unknown): Json => {
    const key = `${face}:${JSON.stringify(o) ?? ''}`;
    let json = converted.get(key);
    if (!json) {
      json = deepFreeze(strip(std.jsonSchema[face](o), kind === 'output', 0, words) as Json);
      converted.set(key, json);
    }
    return json;
  };
  const face: JsonSchemaFace = { input: (o) => once('input', o), output: (o) => once('output', o) };
  return {
    '~standard': { ...std, validate: (std.validate as (v: unknown) => unknown).bind(std), jsonSchema: face },
  } as unknown as T;
}

/** An input or output schema as tools/list advertises it (lean), validating with the full zod schema. */
export const inp = <T extends z.ZodType>(schema: T) => lean(schema, 'input');
export const out = <T extends z.ZodType>(schema: T, words = true) => lean(schema, 'output', words);
/** The annotations of a tool that only reads. */
export const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
