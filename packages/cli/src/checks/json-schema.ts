import {
  array,
  boolean,
  type Check,
  int,
  object,
  oneOf,
  optional,
  record,
  string,
  unknown,
} from './check.js';

/** The part of JSON Schema that zod's toJSONSchema writes for the wire's answers (see checkOf). */
export interface JsonSchema {
  type?: string;
  enum?: readonly string[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
}

/**
 * A check that behaves as the zod schema a JSON Schema was generated from (`z.toJSONSchema`): objects keep their
 * known keys only, optional keys may be absent, integers are safe integers. A construct it does not know throws
 * when the check is built, so a new kind of field in the wire cannot pass unchecked.
 */
export function checkOf(schema: JsonSchema): Check<unknown> {
  if (schema.enum) return oneOf(schema.enum);
  switch (schema.type) {
    case undefined:
      if (Object.keys(schema).length === 0) return unknown;
      break;
    case 'string':
      return string;
    case 'boolean':
      return boolean;
    case 'integer':
      return int;
    case 'array':
      if (schema.items) return array(checkOf(schema.items));
      break;
    case 'object': {
      if (schema.properties) {
        const required = new Set(schema.required ?? []);
        const shape = Object.fromEntries(
          Object.entries(schema.properties).map(([key, value]) => {
            const check = checkOf(value);
            return [key, required.has(key) ? check : optional(check)];
          }),
        );
        return object(shape);
      }
      if (typeof schema.additionalProperties === 'object')
        return record(checkOf(schema.additionalProperties));
      break;
    }
  }
  throw new TypeError(`checkOf: no check for ${JSON.stringify(schema)}`);
}
