/**
 * PostgreSQL text output -> JSON, by type, identical for every engine and driver:
 *
 * - int2, int4, oid: numbers. int8, numeric, money: decimal strings (exact).
 * - float4, float8: numbers; NaN, Infinity and -Infinity as the strings "NaN", "Infinity", "-Infinity".
 * - bool: true/false. json, jsonb: the parsed JSON value.
 * - timestamptz: the session's local time with its offset, `YYYY-MM-DDTHH:MM:SS.mmm+01:00` (`+00:00` in UTC),
 *   with 6 fractional digits when the value has sub-millisecond precision (`...05.123456+00:00`). timestamp: the
 *   same without offset.
 *   Years outside 0000-9999 (and BC years, as astronomical years) use ISO 8601 expanded years (`-000043`).
 * - date: `YYYY-MM-DD` (BC and large years expanded likewise). `infinity`/`-infinity` stay strings.
 * - interval, time, timetz, uuid, text, enums and every other type: PostgreSQL's text output
 *   (IntervalStyle postgres, DateStyle ISO are pinned by `run`).
 * - arrays: JSON arrays of the element type's values. NULL: null.
 */
import type { TypeInfo } from './types-catalog.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

type Converter = (text: string) => JsonValue;

const identity: Converter = (text) => text;
const toNumber: Converter = (text) => Number(text);
const toFloat: Converter = (text) => {
  const n = Number(text);
  return Number.isFinite(n) ? n : text === 'NaN' ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
};
const toJson: Converter = (text) => JSON.parse(text) as JsonValue;

const converters: Record<string, Converter> = {
  bool: (text) => text === 't' || text === 'true',
  int2: toNumber,
  int4: toNumber,
  oid: toNumber,
  float4: toFloat,
  float8: toFloat,
  json: toJson,
  jsonb: toJson,
  timestamptz: (text) => timestampToIso(text, true),
  timestamp: (text) => timestampToIso(text, false),
  date: dateToIso,
};

/** Converts one value of a column whose type is `type` (undefined: unknown type, kept as text). */
export function toJsonValue(
  value: unknown,
  type: TypeInfo | undefined,
  lookup: (oid: number) => TypeInfo | undefined,
): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') return fromParsed(value);
  if (type?.elem !== undefined) {
    const elemType = lookup(type.elem);
    return parseArray(value, (text) => toJsonValue(text, elemType, lookup));
  }
  return (type ? (converters[type.name] ?? identity) : identity)(value);
}

/** Values a foreign driver already parsed: kept as exact as their JavaScript form allows. */
function fromParsed(value: unknown): JsonValue {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value;
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? null : value.toISOString().replace('Z', '+00:00');
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map((v) => (v === null || v === undefined ? null : fromParsed(v)));
  if (typeof value === 'object') return JSON.parse(JSON.stringify(value)) as JsonValue;
  return String(value);
}

const timestampPattern =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/;

/**
 * `2026-01-02 03:04:05.5-05` -> `2026-01-02T03:04:05.500-05:00` (withZone: the offset PostgreSQL gave, that is
 * the session's TimeZone) or `...T03:04:05.500`. An offset with seconds (local mean time before 1900), which ISO
 * 8601 cannot write, gives the instant in UTC (`+00:00`).
 */
export function timestampToIso(text: string, withZone: boolean): string {
  const m = timestampPattern.exec(text);
  if (!m) return text; // infinity, -infinity
  const [, y, mo, d, h, mi, s, frac = '', sign, oh = '0', om = '0', os = '0', bc] = m;
  const micro = frac.padEnd(6, '0');
  const fraction = micro.endsWith('000') ? micro.slice(0, 3) : micro;
  const offsetSeconds = sign
    ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os))
    : 0;
  const keepOffset = offsetSeconds % 60 === 0;
  const zone = !withZone
    ? ''
    : keepOffset && offsetSeconds !== 0
      ? `${sign}${oh.padStart(2, '0')}:${om.padStart(2, '0')}`
      : '+00:00';
  // A four-digit year AD, as written or in UTC: the text is the answer, reordered.
  if (y?.length === 4 && !bc && (keepOffset || !withZone)) {
    return `${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction}${zone}`;
  }
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - Number(y) : Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let ms = date.getTime();
  if (withZone && !keepOffset) ms -= offsetSeconds * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return text; // beyond JavaScript's date range
  const iso = new Date(ms).toISOString(); // [+-YY]YYYY-MM-DDTHH:MM:SS.000Z
  return `${iso.slice(0, iso.indexOf('.'))}.${fraction}${zone}`;
}

const datePattern = /^(\d{4,})-(\d\d)-(\d\d)( BC)?$/;

export function dateToIso(text: string): string {
  const m = datePattern.exec(text);
  if (!m) return text;
  const [, y, mo, d, bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  if (year >= 0 && year <= 9999) return `${String(year).padStart(4, '0')}-${mo}-${d}`;
  return `${year < 0 ? '-' : '+'}${String(Math.abs(year)).padStart(6, '0')}-${mo}-${d}`;
}

/** Parses PostgreSQL's array text output (`{1,NULL,"a \"b\""}`, nested, with optional bounds prefix). */
export function parseArray(text: string, element: (text: string) => JsonValue): JsonValue {
  let i = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const parse = (): JsonValue[] => {
    const out: JsonValue[] = [];
    i++; // '{'
    while (i < text.length) {
      const c = text[i];
      if (c === '}') {
        i++;
        return out;
      }
      if (c === ',') {
        i++;
        continue;
      }
      if (c === '{') {
        out.push(parse());
        continue;
      }
      if (c === '"') {
        let value = '';
        i++;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          value += text[i];
          i++;
        }
        i++;
        out.push(element(value));
        continue;
      }
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
      const raw = text.slice(i, end);
      out.push(raw === 'NULL' ? null : element(raw));
      i = end;
    }
    return out;
  };
  return parse();
}
