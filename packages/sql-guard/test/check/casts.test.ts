import { describe, it } from 'vitest';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('casts and typed literals', () => {
  it('accepts the dialect types in every spelling, with type modifiers', () => {
    accepted(
      "SELECT '1'::text, 'a'::varchar(10), 'a'::character varying, 'a'::char(2), 'a'::character, 1::numeric(12,2), " +
        '1::decimal, 1::smallint, 1::int, 1::integer, 1::int4, 1::bigint, 1::int8, 1::real, 1::float4, 1::float8, ' +
        "1::double precision, 1::float, 'true'::boolean, 'true'::bool, DATE '2026-08-09', '10:00'::time, " +
        "TIMESTAMP '2026-08-09 10:00', TIMESTAMPTZ '2026-08-09 10:00+02', '2026-08-09'::timestamp with time zone, " +
        "INTERVAL '1 day', INTERVAL '1' DAY, CAST('00000000-0000-0000-0000-000000000000' AS uuid), pg_catalog.int4 '1'",
    );
  });

  it('rejects other types, reg* types, arrays and qualified user types', () => {
    rejectedAt("SELECT 'pg_authid'::regclass", 'type_not_allowed', 'regclass');
    rejected("SELECT 'now'::regproc", 'type_not_allowed');
    rejected("SELECT CAST('x' AS json)", 'type_not_allowed');
    rejected("SELECT 'x'::bytea", 'type_not_allowed');
    rejected("SELECT '{1}'::int[]", 'type_not_allowed');
    rejected("SELECT 'x'::public.mood", 'type_not_allowed');
    rejected("SELECT 'x'::name", 'type_not_allowed');
    rejected("SELECT 'x'::oid", 'type_not_allowed');
    rejected("SELECT '10:00'::timetz", 'type_not_allowed');
    rejected("SELECT xml '<a/>'", 'type_not_allowed');
  });
});
