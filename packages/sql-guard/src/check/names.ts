/** Name tables: canonical type names, operators, function-like node types, statement kinds. */
import type { CompiledDialect } from './dialect.js';

/** PostgreSQL's internal and SQL-standard spellings of the allowed scalar types, to one canonical name. */
export const TYPE_ALIASES: Readonly<Record<string, string>> = {
  text: 'text',
  varchar: 'varchar',
  'character varying': 'varchar',
  bpchar: 'char',
  char: 'char',
  character: 'char',
  numeric: 'numeric',
  decimal: 'numeric',
  int2: 'smallint',
  smallint: 'smallint',
  int4: 'integer',
  int: 'integer',
  integer: 'integer',
  int8: 'bigint',
  bigint: 'bigint',
  float4: 'real',
  real: 'real',
  float8: 'double precision',
  float: 'double precision',
  'double precision': 'double precision',
  bool: 'boolean',
  boolean: 'boolean',
  date: 'date',
  time: 'time',
  'time without time zone': 'time',
  timestamp: 'timestamp',
  'timestamp without time zone': 'timestamp',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  interval: 'interval',
  uuid: 'uuid',
};

export function canonicalType(name: string): string {
  return TYPE_ALIASES[name] ?? name;
}

/** Binary operators of the dialect: comparison, arithmetic and text concatenation. */
export const BINARY_OPERATORS: ReadonlySet<string> = new Set([
  '=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
]);
export const UNARY_OPERATORS: ReadonlySet<string> = new Set(['-', '+']);
export const COMPARISON_OPERATORS: ReadonlySet<string> = new Set(['=', '<>', '<', '>', '<=', '>=']);

export function operatorHint(op: string): string {
  if (/^!?~\*?$/.test(op))
    return 'regular expressions are not part of the dialect; use LIKE or ILIKE patterns';
  if (['->', '->>', '#>', '#>>', '@>', '<@', '?', '?|', '?&', '@?', '@@', '#-'].includes(op)) {
    return 'JSON, array and search operators are not part of the dialect; compare ordinary columns';
  }
  return 'use comparison (= <> < > <= >=), arithmetic (+ - * / %), || or LIKE/ILIKE';
}

/** Function-like node types the parser produces for special syntax, to the name a user wrote. */
export function functionLikeName(type: string, fields: Record<string, unknown>): string | undefined {
  const op = typeof fields.op === 'string' ? fields.op : '';
  switch (type) {
    case 'SQLValueFunction':
      return op
        .replace(/^SVFOP_/, '')
        .toLowerCase()
        .replace(/_n$/, '');
    case 'MinMaxExpr':
      return op === 'IS_LEAST' ? 'least' : 'greatest';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'XmlExpr':
      return op.replace(/^IS_/, '').toLowerCase();
    case 'XmlSerialize':
      return 'xmlserialize';
    case 'GroupingFunc':
      return 'grouping';
    case 'JsonFuncExpr':
      return op.replace(/_OP$/, '').toLowerCase();
    case 'JsonObjectConstructor':
      return 'json_object';
    case 'JsonArrayConstructor':
    case 'JsonArrayQueryConstructor':
      return 'json_array';
    case 'JsonObjectAgg':
      return 'json_objectagg';
    case 'JsonArrayAgg':
      return 'json_arrayagg';
    case 'JsonParseExpr':
      return 'json';
    case 'JsonScalarExpr':
      return 'json_scalar';
    case 'JsonSerializeExpr':
      return 'json_serialize';
    case 'JsonIsPredicate':
      return 'is json';
    case 'MergeSupportFunc':
      return 'merge_action';
    default:
      return undefined;
  }
}

/**
 * How to say a rejected function within the dialect: a way around it where the dialect has what that
 * way needs, otherwise the dialect's own functions.
 */
export function functionHint(name: string, dialect: CompiledDialect): string {
  const allowed = `allowed functions: ${dialect.functionList}`;
  const has = (type: string) => dialect.castTypes.has(type);
  switch (name) {
    case 'lower':
    case 'upper':
      return "for case-insensitive matching use ILIKE (column ILIKE '%text%') instead of LOWER(...) LIKE";
    case 'now':
    case 'current_date':
    case 'current_timestamp':
    case 'current_time':
    case 'localtime':
    case 'localtimestamp':
    case 'transaction_timestamp':
    case 'statement_timestamp':
    case 'clock_timestamp':
      if (has('timestamptz'))
        return "write the time as a literal; for a range of a timestamptz column use TIMESTAMPTZ literals, e.g. ts >= TIMESTAMPTZ '2026-08-09 00:00:00' AND ts < TIMESTAMPTZ '2026-08-10 00:00:00' (DATE bounds there compare through a function that is not leakproof, so under row-level security no index can use them); a date column takes DATE '2026-08-09'";
      if (has('date')) return "write the date as a literal, e.g. DATE '2026-08-09'";
      return "write the date as a string literal, e.g. '2026-08-09'";
    case 'date_trunc':
    case 'extract':
    case 'date_part':
    case 'to_char':
    case 'make_date':
      if (has('timestamptz'))
        return "filter with explicit ranges of TIMESTAMPTZ literals, e.g. ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00' (an index can use them; DATE bounds on a timestamptz column it cannot under row-level security); bucket by month with a VALUES list of such bounds";
      return "filter with explicit ranges, e.g. ts >= '2026-08-01' AND ts < '2026-09-01'";
    case 'greatest':
    case 'least':
      return 'use CASE WHEN a > b THEN a ELSE b END';
    case 'nullif':
      return 'use CASE WHEN a = b THEN NULL ELSE a END';
    case 'round':
    case 'trunc':
    case 'abs':
      if (has('numeric'))
        return 'return the exact value and round on the client, or use a cast such as ::numeric(12,2)';
      return `return the exact value and round on the client; ${allowed}`;
    case 'current_user':
    case 'session_user':
    case 'user':
    case 'current_role':
    case 'system_user':
    case 'current_catalog':
    case 'current_schema':
      return 'session information is not available through SQL';
    default:
      return allowed;
  }
}

/** A readable name for a statement node type: CreateStmt -> CREATE, VariableSetStmt -> SET ... */
const STATEMENT_NAMES: Readonly<Record<string, string>> = {
  TransactionStmt: 'transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT)',
  VariableSetStmt: 'SET/RESET',
  VariableShowStmt: 'SHOW',
  CopyStmt: 'COPY',
  ExplainStmt: 'EXPLAIN',
  LockStmt: 'LOCK',
  DoStmt: 'DO',
  CallStmt: 'CALL',
  MergeStmt: 'MERGE',
  DeclareCursorStmt: 'DECLARE CURSOR',
  FetchStmt: 'FETCH/MOVE',
  ClosePortalStmt: 'CLOSE',
  ListenStmt: 'LISTEN',
  UnlistenStmt: 'UNLISTEN',
  NotifyStmt: 'NOTIFY',
  VacuumStmt: 'VACUUM/ANALYZE',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeallocateStmt: 'DEALLOCATE',
  TruncateStmt: 'TRUNCATE',
  GrantStmt: 'GRANT/REVOKE',
  GrantRoleStmt: 'GRANT/REVOKE role',
  DropStmt: 'DROP',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  ViewStmt: 'CREATE VIEW',
  IndexStmt: 'CREATE INDEX',
  CreateFunctionStmt: 'CREATE FUNCTION',
  DiscardStmt: 'DISCARD',
  LoadStmt: 'LOAD',
  CheckPointStmt: 'CHECKPOINT',
  ReindexStmt: 'REINDEX',
  ClusterStmt: 'CLUSTER',
  CommentStmt: 'COMMENT ON',
};

export function statementName(type: string): string {
  const known = STATEMENT_NAMES[type];
  if (known) return known;
  return type
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}
