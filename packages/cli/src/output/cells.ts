/** The text a value takes in a table or CSV cell: NULL is empty, objects are JSON, everything else its string. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

const NUMERIC_TYPES = new Set([
  'numeric',
  'decimal',
  'int2',
  'int4',
  'int8',
  'smallint',
  'integer',
  'bigint',
  'float4',
  'float8',
  'real',
  'double precision',
  'money',
  'oid',
]);

/** Whether a PostgreSQL type name is numeric, so its column is right-aligned. */
export function isNumericType(type: string): boolean {
  return NUMERIC_TYPES.has(
    type
      .toLowerCase()
      .replace(/\(.*\)$/, '')
      .trim(),
  );
}
