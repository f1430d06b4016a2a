import type { GuardErrorCode } from '../types.js';
import type { CompiledDialect } from './dialect.js';
import { functionHint } from './names.js';

/** Why the guard refuses a construct it knows, and how to say it within the dialect. */
export interface Denial {
  code: GuardErrorCode;
  message: string;
  hint?: string | ((dialect: CompiledDialect) => string);
}

/** Fields that name an unsafe feature of an otherwise allowed node. */
export const DENIED_FIELDS: Readonly<Record<string, Denial>> = {
  intoClause: {
    code: 'select_into_not_allowed',
    message: 'SELECT ... INTO is not allowed.',
    hint: 'to copy rows use INSERT INTO relation (...) SELECT ...; to read, drop the INTO clause',
  },
  lockingClause: {
    code: 'locking_clause_not_allowed',
    message: 'Locking clauses (FOR UPDATE / FOR SHARE / FOR NO KEY UPDATE / FOR KEY SHARE) are not allowed.',
    hint: 'remove the locking clause; each request runs in its own transaction',
  },
  onConflictClause: {
    code: 'on_conflict_not_allowed',
    message: 'INSERT ... ON CONFLICT is not supported.',
    hint: 'UPDATE the existing row first and INSERT only when the UPDATE affected no row (two statements in script mode)',
  },
  over: {
    code: 'construct_not_allowed',
    message: 'Window functions (... OVER (...)) are not allowed.',
    hint: 'aggregate with GROUP BY, or join to a grouped subquery',
  },
  windowClause: {
    code: 'construct_not_allowed',
    message: 'The WINDOW clause is not allowed.',
    hint: 'aggregate with GROUP BY, or join to a grouped subquery',
  },
  agg_within_group: {
    code: 'function_not_allowed',
    message: 'Ordered-set aggregates (WITHIN GROUP) are not allowed.',
    hint: (dialect) => functionHint('', dialect),
  },
  func_variadic: { code: 'construct_not_allowed', message: 'VARIADIC arguments are not allowed.' },
  indirection: {
    code: 'construct_not_allowed',
    message: 'Subscripts and field selection ([...], (...).field) are not allowed.',
    hint: 'reference plain columns',
  },
  useOp: {
    code: 'construct_not_allowed',
    message: 'ORDER BY ... USING is not allowed.',
    hint: 'use ORDER BY ... ASC or DESC',
  },
  search_clause: {
    code: 'construct_not_allowed',
    message: 'The SEARCH clause of WITH RECURSIVE is not allowed.',
    hint: 'order the result with ORDER BY',
  },
  cycle_clause: {
    code: 'construct_not_allowed',
    message: 'The CYCLE clause of WITH RECURSIVE is not allowed.',
    hint: 'stop the recursion with a WHERE condition in the recursive term',
  },
  arrayBounds: {
    code: 'type_not_allowed',
    message: 'Array types are not allowed.',
    hint: 'cast to a scalar type',
  },
  setof: { code: 'type_not_allowed', message: 'SETOF types are not allowed.' },
  pct_type: { code: 'type_not_allowed', message: '%TYPE references are not allowed.' },
};

/** Node types that are rejected with a specific message instead of the generic one. */
export const DENIED_NODES: Readonly<Record<string, Denial>> = {
  RangeFunction: {
    code: 'function_not_allowed',
    message: 'Functions in FROM are not allowed.',
    hint: (dialect) => `select from the dialect's relations: ${dialect.relationList}`,
  },
  RangeTableFunc: { code: 'function_not_allowed', message: 'XMLTABLE in FROM is not allowed.' },
  JsonTable: { code: 'function_not_allowed', message: 'JSON_TABLE in FROM is not allowed.' },
  RangeTableSample: {
    code: 'construct_not_allowed',
    message: 'TABLESAMPLE is not allowed.',
    hint: 'use LIMIT',
  },
  A_ArrayExpr: { code: 'construct_not_allowed', message: 'Array constructors (ARRAY[...]) are not allowed.' },
  A_Indirection: DENIED_FIELDS.indirection!,
  CollateClause: {
    code: 'construct_not_allowed',
    message: 'COLLATE is not allowed.',
    hint: 'use ILIKE for case-insensitive matching',
  },
  ParamRef: {
    code: 'construct_not_allowed',
    message: 'Parameters ($1, $2, ...) are not allowed.',
    hint: 'write the values as literals',
  },
  NamedArgExpr: {
    code: 'construct_not_allowed',
    message: 'Named function arguments (name => value) are not allowed.',
  },
  CurrentOfExpr: { code: 'construct_not_allowed', message: 'WHERE CURRENT OF is not allowed.' },
};
