/** Name tables: canonical type names, operators, function-like node types, statement kinds. */

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

/** How to say a rejected function within the dialect. */
export function functionHint(name: string): string {
  switch (name) {
    case 'lower':
    case 'upper':
      return "for case-insensitive matching use ILIKE (e.g. note ILIKE '%coffee%') instead of LOWER(...) LIKE";
    case 'now':
    case 'current_date':
    case 'current_timestamp':
    case 'current_time':
    case 'localtime':
    case 'localtimestamp':
    case 'transaction_timestamp':
    case 'statement_timestamp':
    case 'clock_timestamp':
      return "write the date as a literal, e.g. DATE '2026-08-09' or TIMESTAMPTZ '2026-08-09 00:00:00+00'";
    case 'date_trunc':
    case 'extract':
    case 'date_part':
    case 'to_char':
    case 'make_date':
      return "filter with explicit date ranges, e.g. ts >= DATE '2026-08-01' AND ts < DATE '2026-09-01'";
    case 'greatest':
    case 'least':
      return 'use CASE WHEN a > b THEN a ELSE b END';
    case 'nullif':
      return 'use CASE WHEN a = b THEN NULL ELSE a END';
    case 'round':
    case 'trunc':
    case 'abs':
      return 'return the exact value and round on the client, or use a cast such as ::numeric(12,2)';
    case 'current_user':
    case 'session_user':
    case 'user':
    case 'current_role':
    case 'system_user':
    case 'current_catalog':
    case 'current_schema':
      return 'session information is not available through SQL; the API reports the account and workspace';
    default:
      return 'allowed functions: SUM, COUNT, MIN, MAX, AVG, COALESCE';
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

/**
 * Functions PostgreSQL also reaches through field notation (`t.to_json` is `to_json(t)` when no
 * column has that name): every pg_catalog function of one polymorphic, record or "any" argument.
 * No column of the dialect's relations may carry these names, so the guard rejects them.
 */
export const FIELD_NOTATION_FUNCTIONS: ReadonlySet<string> = new Set([
  'num_nulls',
  'num_nonnulls',
  'any_out',
  'anyelement_out',
  'anynonarray_out',
  'anycompatible_out',
  'anycompatiblenonarray_out',
  'hash_record',
  'hash_record_extended',
  'pg_column_size',
  'pg_column_compression',
  'pg_column_toast_chunk_id',
  'quote_literal',
  'quote_nullable',
  'pg_typeof',
  'record_out',
  'record_send',
  'concat',
  'row_to_json',
  'pg_collation_for',
  'to_json',
  'to_jsonb',
  'json_build_array',
  'json_build_object',
  'jsonb_build_array',
  'jsonb_build_object',
]);

/** System columns: not part of any relation's published columns. */
export const SYSTEM_COLUMNS: ReadonlySet<string> = new Set([
  'ctid',
  'xmin',
  'xmax',
  'cmin',
  'cmax',
  'tableoid',
]);
