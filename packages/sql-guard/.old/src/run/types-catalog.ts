import type { SqlSession } from '../types.js';

/** What the serializer needs to know about a type: its pg_type.typname and, for arrays, the element type. */
export interface TypeInfo {
  name: string;
  /** Element type OID of an array type. */
  elem?: number;
}

// Built-in types have the same OID in every PostgreSQL database (they are below FirstNormalObjectId).
const builtins: Array<[number, string, number?]> = [
  [16, 'bool'],
  [17, 'bytea'],
  [18, 'char'],
  [19, 'name'],
  [20, 'int8'],
  [21, 'int2'],
  [23, 'int4'],
  [24, 'regproc'],
  [25, 'text'],
  [26, 'oid'],
  [28, 'xid'],
  [29, 'cid'],
  [114, 'json'],
  [142, 'xml'],
  [600, 'point'],
  [650, 'cidr'],
  [700, 'float4'],
  [701, 'float8'],
  [705, 'unknown'],
  [790, 'money'],
  [829, 'macaddr'],
  [869, 'inet'],
  [1042, 'bpchar'],
  [1043, 'varchar'],
  [1082, 'date'],
  [1083, 'time'],
  [1114, 'timestamp'],
  [1184, 'timestamptz'],
  [1186, 'interval'],
  [1266, 'timetz'],
  [1560, 'bit'],
  [1562, 'varbit'],
  [1700, 'numeric'],
  [2249, 'record'],
  [2278, 'void'],
  [2950, 'uuid'],
  [3802, 'jsonb'],
  [199, '_json', 114],
  [1000, '_bool', 16],
  [1001, '_bytea', 17],
  [1002, '_char', 18],
  [1003, '_name', 19],
  [1005, '_int2', 21],
  [1007, '_int4', 23],
  [1009, '_text', 25],
  [1014, '_bpchar', 1042],
  [1015, '_varchar', 1043],
  [1016, '_int8', 20],
  [1021, '_float4', 700],
  [1022, '_float8', 701],
  [1028, '_oid', 26],
  [1115, '_timestamp', 1114],
  [1182, '_date', 1082],
  [1183, '_time', 1083],
  [1185, '_timestamptz', 1184],
  [1187, '_interval', 1186],
  [1231, '_numeric', 1700],
  [1270, '_timetz', 1266],
  [2951, '_uuid', 2950],
  [3807, '_jsonb', 3802],
  [791, '_money', 790],
  [2287, '_record', 2249],
];

const builtinTypes = new Map<number, TypeInfo>(
  builtins.map(([oid, name, elem]) => [oid, elem === undefined ? { name } : { name, elem }]),
);

/** User types (enums, domains' arrays, extensions) differ per database: cached per session. */
const sessionTypes = new WeakMap<SqlSession, Map<number, TypeInfo>>();

export function typeInfo(session: SqlSession, oid: number): TypeInfo | undefined {
  return builtinTypes.get(oid) ?? sessionTypes.get(session)?.get(oid);
}

/** Looks up, in one catalog query, the OIDs this request met that are not known yet. */
export async function resolveTypes(session: SqlSession, oids: Iterable<number>): Promise<void> {
  const missing = [...new Set(oids)].filter((oid) => Number.isInteger(oid) && !typeInfo(session, oid));
  if (missing.length === 0) return;
  let cache = sessionTypes.get(session);
  if (!cache) {
    cache = new Map();
    sessionTypes.set(session, cache);
  }
  // Only integers are interpolated.
  const result = await session.query(
    `SELECT oid::pg_catalog.int8::pg_catalog.text AS oid, typname::pg_catalog.text AS typname, typelem::pg_catalog.int8::pg_catalog.text AS typelem, typcategory::pg_catalog.text AS typcategory FROM pg_catalog.pg_type WHERE oid IN (${missing.join(', ')})`,
  );
  for (const row of result.rows) {
    const r = row as Record<string, unknown>;
    const elem = Number(r.typelem);
    cache.set(
      Number(r.oid),
      r.typcategory === 'A' && elem ? { name: String(r.typname), elem } : { name: String(r.typname) },
    );
  }
  for (const oid of missing) if (!cache.has(oid)) cache.set(oid, { name: 'unknown' });
}
