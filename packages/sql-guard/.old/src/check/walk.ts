import type { Access, GuardErrorCode, Operation, RelationAccess } from '../types.js';
import type { CompiledDialect } from './dialect.js';
import {
  BINARY_OPERATORS,
  COMPARISON_OPERATORS,
  canonicalType,
  FIELD_NOTATION_FUNCTIONS,
  functionHint,
  functionLikeName,
  operatorHint,
  SYSTEM_COLUMNS,
  UNARY_OPERATORS,
} from './names.js';
import { violation } from './violation.js';

/**
 * The default-deny walk over one statement's parse tree. Every node type that may appear is a key of
 * RULES, with the exact set of fields it may carry; anything else rejects the statement. The walk is
 * recursive but bounded: MAX_DEPTH nested nodes at most.
 */
export const MAX_DEPTH = 256;

type Fields = Record<string, unknown>;

interface Rule {
  /** Fields the node may carry besides `location`. */
  fields: ReadonlySet<string>;
  visit(w: Walker, f: Fields): void;
}

interface Scope {
  names: Set<string>;
  parent: Scope | undefined;
}

interface Denial {
  code: GuardErrorCode;
  message: string;
  hint?: string;
}

/** Fields that name an unsafe feature of an otherwise allowed node. */
const DENIED_FIELDS: Readonly<Record<string, Denial>> = {
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
    hint: 'UPDATE the existing row first and INSERT only when the UPDATE affected no row (two statements in /sql)',
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
    hint: functionHint(''),
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
  search_clause: { code: 'construct_not_allowed', message: 'The SEARCH clause of WITH is not allowed.' },
  cycle_clause: { code: 'construct_not_allowed', message: 'The CYCLE clause of WITH is not allowed.' },
  arrayBounds: {
    code: 'type_not_allowed',
    message: 'Array types are not allowed.',
    hint: 'cast to a scalar type',
  },
  setof: { code: 'type_not_allowed', message: 'SETOF types are not allowed.' },
  pct_type: { code: 'type_not_allowed', message: '%TYPE references are not allowed.' },
};

/** Node types that are rejected with a specific message instead of the generic one. */
const DENIED_NODES: Readonly<Record<string, Denial>> = {
  RangeFunction: {
    code: 'function_not_allowed',
    message: 'Functions in FROM are not allowed.',
    hint: 'select from the dialect relations only',
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

const LOCATION = 'location';

export class Walker {
  private depth = 0;
  private at: number;
  private scope: Scope | undefined;
  private top = true;
  private readonly accesses = new Map<string, RelationAccess>();

  constructor(
    private readonly dialect: CompiledDialect,
    statementByte: number,
  ) {
    this.at = statementByte;
  }

  get relations(): RelationAccess[] {
    return [...this.accesses.values()];
  }

  fail(code: GuardErrorCode, message: string, hint?: string): never {
    return violation(code, message, hint, this.at);
  }

  /** A wrapped node: `{ TypeName: { ...fields } }`. */
  node(value: unknown): void {
    const entry = single(value);
    if (!entry) this.fail('construct_not_allowed', 'The parse tree holds an unexpected value.');
    this.visit(entry[0], entry[1]);
  }

  nodes(value: unknown): void {
    if (value === undefined) return;
    for (const item of this.array(value)) this.node(item);
  }

  /** An unwrapped node whose type the parent field fixes (e.g. InsertStmt.relation is a RangeVar). */
  visit(type: string, value: unknown, rule: Rule | undefined = RULES[type]): void {
    if (!isFields(value)) this.fail('construct_not_allowed', `The parse tree holds a malformed ${type}.`);
    const saved = this.at;
    const loc = value[LOCATION];
    if (typeof loc === 'number' && loc >= 0) this.at = loc;
    if (++this.depth > MAX_DEPTH) {
      this.fail(
        'construct_not_allowed',
        `The statement is nested more than ${MAX_DEPTH} levels deep.`,
        'simplify it or split it into several statements',
      );
    }
    if (!rule) this.reject(type, value);
    for (const key in value) {
      if (key === LOCATION || rule.fields.has(key)) continue;
      const denial = DENIED_FIELDS[key];
      if (denial) this.fail(denial.code, denial.message, denial.hint);
      this.fail(
        'construct_not_allowed',
        `${type}.${key} is not allowed (the guard does not know this construct).`,
      );
    }
    rule.visit(this, value);
    this.depth--;
    this.at = saved;
  }

  private reject(type: string, f: Fields): never {
    const denial = DENIED_NODES[type];
    if (denial) this.fail(denial.code, denial.message, denial.hint);
    const fn = functionLikeName(type, f);
    if (fn)
      this.fail('function_not_allowed', `Function ${fn.toUpperCase()} is not allowed.`, functionHint(fn));
    this.fail('construct_not_allowed', `${type} is not allowed (not on the guard's allowlist).`);
  }

  array(value: unknown): unknown[] {
    if (!Array.isArray(value))
      this.fail('construct_not_allowed', 'The parse tree holds an unexpected value.');
    return value;
  }

  /** `String` nodes of a name list, as plain strings. */
  names(value: unknown): string[] {
    return this.array(value).map((item) => {
      const entry = single(item);
      const sval = entry && entry[0] === 'String' && isFields(entry[1]) ? entry[1].sval : undefined;
      if (typeof sval !== 'string')
        this.fail('construct_not_allowed', 'The parse tree holds an unexpected name.');
      return sval;
    });
  }

  oneOf(value: unknown, allowed: readonly string[], what: string): void {
    if (value !== undefined && !allowed.includes(value as string)) {
      this.fail('construct_not_allowed', `${what} ${String(value)} is not allowed.`);
    }
  }

  /** The first statement node visited is the top level, where data-modifying WITH is allowed. */
  takeTop(): boolean {
    const top = this.top;
    this.top = false;
    return top;
  }

  /**
   * Walks `body` with the CTEs of a WITH clause in scope. Non-recursive WITH: each CTE sees only the
   * CTEs listed before it; the statement's body sees them all. A CTE name never names a DML target.
   */
  withClause(value: unknown, allowWrites: boolean, body: () => void): void {
    if (value === undefined) {
      body();
      return;
    }
    this.visit('WithClause', value, WITH_CLAUSE);
    const wc = value as Fields;
    if (wc.recursive) {
      this.fail(
        'construct_not_allowed',
        'WITH RECURSIVE is not allowed.',
        'use a non-recursive WITH or join the relations directly',
      );
    }
    const scope: Scope = { names: new Set(), parent: this.scope };
    this.scope = scope;
    for (const item of this.array(wc.ctes)) {
      const entry = single(item);
      if (entry?.[0] !== 'CommonTableExpr')
        this.fail('construct_not_allowed', 'The WITH clause holds an unexpected item.');
      this.visit('CommonTableExpr', entry[1], COMMON_TABLE_EXPR);
      const cte = entry[1] as Fields;
      const saved = this.at;
      if (typeof cte.location === 'number') this.at = cte.location;
      const query = single(cte.ctequery);
      if (query && query[0] !== 'SelectStmt' && !allowWrites) {
        this.fail(
          'construct_not_allowed',
          `The data-modifying WITH item ${String(cte.ctename)} is allowed only in the WITH clause of the statement itself.`,
        );
      }
      if (!query || !['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(query[0])) {
        this.fail('construct_not_allowed', 'A WITH item must be SELECT, INSERT, UPDATE or DELETE.');
      }
      this.at = saved;
      this.node(cte.ctequery);
      scope.names.add(cte.ctename as string);
    }
    body();
    this.scope = scope.parent;
  }

  private isCte(name: string): boolean {
    for (let s = this.scope; s; s = s.parent) if (s.names.has(name)) return true;
    return false;
  }

  /** A relation named in FROM/USING/JOIN: a CTE in scope, or a base relation read. */
  readRelation(f: Fields): void {
    if (f.schemaname === undefined && f.catalogname === undefined && this.isCte(f.relname as string)) return;
    this.baseRelation(f, 'select');
  }

  /** A base relation, checked against the dialect and recorded with its access. */
  baseRelation(f: Fields, op: Operation): void {
    const name = f.relname as string;
    const saved = this.at;
    if (typeof f.location === 'number' && f.location >= 0) this.at = f.location;
    if (f.schemaname !== undefined || f.catalogname !== undefined) {
      const qualified = [f.catalogname, f.schemaname, name].filter((p) => p !== undefined).join('.');
      this.fail(
        'relation_not_allowed',
        `Qualified relation names are not allowed (${qualified}).`,
        this.dialect.relations.has(name)
          ? `write ${name} without the schema`
          : `available relations: ${this.dialect.relationList}`,
      );
    }
    const operations = this.dialect.relations.get(name);
    if (!operations) {
      this.fail(
        'relation_not_allowed',
        `Relation ${name} is not available.`,
        `available relations: ${this.dialect.relationList}`,
      );
    }
    if (!operations.has(op)) {
      const allowed = [...operations].map((o) => o.toUpperCase()).join(', ');
      this.fail(
        'operation_not_allowed',
        `${op.toUpperCase()} on ${name} is not allowed (it allows ${allowed || 'nothing'}).`,
        op === 'select'
          ? undefined
          : `${name} is read-only; write to the relations that allow ${op.toUpperCase()}`,
      );
    }
    const access: Access = op === 'select' ? 'read' : op;
    const key = `${access}:${name}`;
    if (!this.accesses.has(key)) this.accesses.set(key, { name, access });
    this.at = saved;
  }

  /** A DML target: always a base relation (PostgreSQL never resolves it to a CTE). */
  target(value: unknown, op: Operation): void {
    this.visit('RangeVar', value, TARGET_RANGE_VAR);
    this.baseRelation(value as Fields, op);
  }

  isAllowedFunction(name: string): boolean {
    return this.dialect.functions.has(name);
  }

  function(name: string): void {
    if (!this.dialect.functions.has(name)) {
      this.fail('function_not_allowed', `Function ${name.toUpperCase()} is not allowed.`, functionHint(name));
    }
  }

  typeName(value: unknown): void {
    this.visit('TypeName', value, TYPE_NAME);
  }

  /** Called with the TypeName's own location current. */
  checkType(f: Fields): void {
    const names = this.names(f.names);
    const qualifier = names.length === 2 ? names[0] : undefined;
    const last = names[names.length - 1] ?? '';
    const allowed = `allowed types: ${[...this.dialect.castTypes].join(', ')}`;
    if (names.length > 2 || (qualifier !== undefined && qualifier !== 'pg_catalog')) {
      this.fail('type_not_allowed', `Type ${names.join('.')} is not allowed.`, allowed);
    }
    const canonical = canonicalType(last);
    if (!this.dialect.castTypes.has(canonical)) {
      this.fail(
        'type_not_allowed',
        `Type ${canonical} is not allowed.`,
        last.startsWith('reg') ? 'catalog lookups (reg* types) are not available' : allowed,
      );
    }
    for (const mod of f.typmods === undefined ? [] : this.array(f.typmods)) {
      const entry = single(mod);
      if (entry?.[0] !== 'A_Const' || !isFields(entry[1]) || !isIntegerConst(entry[1])) {
        this.fail('type_not_allowed', `Type modifiers of ${canonical} must be integer constants.`);
      }
    }
    if (f.typemod !== undefined && f.typemod !== -1)
      this.fail('type_not_allowed', 'Unexpected type modifier.');
  }

  sortClause(value: unknown): void {
    if (value === undefined) return;
    for (const item of this.array(value)) {
      const entry = single(item);
      if (entry?.[0] !== 'SortBy') this.fail('construct_not_allowed', 'ORDER BY holds an unexpected item.');
      this.visit('SortBy', entry[1]);
    }
  }

  returning(value: unknown): void {
    if (value === undefined) return;
    this.visit('ReturningClause', value, RETURNING_CLAUSE);
    this.nodes((value as Fields).exprs);
  }

  /** A SelectStmt that may come wrapped or unwrapped (set-operation arms). */
  select(value: unknown): void {
    const entry = single(value);
    if (entry && entry[0] === 'SelectStmt') this.visit('SelectStmt', entry[1]);
    else this.visit('SelectStmt', value);
  }

  operator(name: unknown, allowed: ReadonlySet<string>): string {
    const names = this.names(name);
    const op = names.join('.');
    if (names.length !== 1) {
      this.fail(
        'construct_not_allowed',
        `Qualified operators (OPERATOR(${op})) are not allowed.`,
        'write the plain operator',
      );
    }
    if (!allowed.has(op))
      this.fail('construct_not_allowed', `Operator ${op} is not allowed.`, operatorHint(op));
    return op;
  }

  columnRef(f: Fields): void {
    const parts = this.array(f.fields);
    const names: string[] = [];
    parts.forEach((part, i) => {
      const entry = single(part);
      if (entry && entry[0] === 'A_Star' && i === parts.length - 1) return;
      if (entry?.[0] !== 'String' || !isFields(entry[1]) || typeof entry[1].sval !== 'string') {
        this.fail('construct_not_allowed', 'The column reference holds an unexpected part.');
      }
      names.push(entry[1].sval);
    });
    if (parts.length > 2) {
      this.fail(
        'construct_not_allowed',
        `Column references of more than two parts are not allowed (${names.join('.')}).`,
        'write alias.column',
      );
    }
    const last = names[names.length - 1];
    if (last === undefined) return;
    if (SYSTEM_COLUMNS.has(last)) this.fail('construct_not_allowed', `System column ${last} is not allowed.`);
    if (names.length === 2 && FIELD_NOTATION_FUNCTIONS.has(last)) {
      this.fail(
        'function_not_allowed',
        `${names.join('.')} calls the function ${last.toUpperCase()}, which is not allowed.`,
        functionHint(last),
      );
    }
  }
}

function single(value: unknown): [string, unknown] | undefined {
  if (!isFields(value)) return undefined;
  let found: [string, unknown] | undefined;
  for (const key in value) {
    if (found) return undefined;
    found = [key, value[key]];
  }
  return found;
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** libpg-query omits zero values: the modifier 0 of `numeric(5,0)` comes as `{ ival: {} }`. */
function isIntegerConst(f: Fields): boolean {
  return 'ival' in f && Object.keys(f).every((k) => k === 'ival' || k === LOCATION);
}

const set = (...fields: string[]): ReadonlySet<string> => new Set(fields);
const noVisit = (): void => {};

const WITH_CLAUSE: Rule = { fields: set('ctes', 'recursive'), visit: noVisit };
const COMMON_TABLE_EXPR: Rule = {
  fields: set('ctename', 'aliascolnames', 'ctematerialized', 'ctequery'),
  visit(w, f) {
    if (f.aliascolnames !== undefined) w.names(f.aliascolnames);
    w.oneOf(
      f.ctematerialized,
      ['CTEMaterializeDefault', 'CTEMaterializeAlways', 'CTEMaterializeNever'],
      'MATERIALIZED option',
    );
  },
};
const ALIAS: Rule = {
  fields: set('aliasname', 'colnames'),
  visit(w, f) {
    if (f.colnames !== undefined) w.names(f.colnames);
  },
};
const RANGE_VAR_FIELDS = set('relname', 'schemaname', 'catalogname', 'inh', 'relpersistence', 'alias');
function rangeVar(w: Walker, f: Fields): void {
  w.oneOf(f.relpersistence, ['p'], 'Relation persistence');
  if (f.alias !== undefined) w.visit('Alias', f.alias, ALIAS);
}
const TARGET_RANGE_VAR: Rule = { fields: RANGE_VAR_FIELDS, visit: rangeVar };
const TYPE_NAME: Rule = {
  fields: set('names', 'typmods', 'typemod'),
  visit(w, f) {
    w.checkType(f);
  },
};
const RETURNING_CLAUSE: Rule = { fields: set('exprs'), visit: noVisit };

const SETOPS = ['SETOP_NONE', 'SETOP_UNION', 'SETOP_INTERSECT', 'SETOP_EXCEPT'];

const RULES: Readonly<Record<string, Rule>> = {
  SelectStmt: {
    fields: set(
      'distinctClause',
      'targetList',
      'fromClause',
      'whereClause',
      'groupClause',
      'groupDistinct',
      'havingClause',
      'valuesLists',
      'sortClause',
      'limitOffset',
      'limitCount',
      'limitOption',
      'withClause',
      'op',
      'all',
      'larg',
      'rarg',
    ),
    visit(w, f) {
      w.withClause(f.withClause, w.takeTop(), () => {
        w.oneOf(f.op, SETOPS, 'Set operation');
        if (f.op !== undefined && f.op !== 'SETOP_NONE') {
          w.select(f.larg);
          w.select(f.rarg);
        } else if (f.larg !== undefined || f.rarg !== undefined) {
          w.fail('construct_not_allowed', 'Unexpected set-operation arms.');
        }
        if (f.distinctClause !== undefined) {
          const items = w.array(f.distinctClause);
          // Plain DISTINCT is a list holding one empty node; DISTINCT ON lists expressions.
          if (!(items.length === 1 && isFields(items[0]) && Object.keys(items[0]).length === 0))
            w.nodes(items);
        }
        w.nodes(f.fromClause);
        w.nodes(f.targetList);
        if (f.whereClause !== undefined) w.node(f.whereClause);
        w.nodes(f.groupClause);
        if (f.havingClause !== undefined) w.node(f.havingClause);
        w.nodes(f.valuesLists);
        w.sortClause(f.sortClause);
        if (f.limitOffset !== undefined) w.node(f.limitOffset);
        if (f.limitCount !== undefined) w.node(f.limitCount);
        w.oneOf(
          f.limitOption,
          ['LIMIT_OPTION_DEFAULT', 'LIMIT_OPTION_COUNT', 'LIMIT_OPTION_WITH_TIES'],
          'Limit option',
        );
      });
    },
  },
  InsertStmt: {
    fields: set('relation', 'cols', 'selectStmt', 'returningClause', 'withClause', 'override'),
    visit(w, f) {
      w.withClause(f.withClause, w.takeTop(), () => {
        w.oneOf(f.override, ['OVERRIDING_NOT_SET'], 'OVERRIDING');
        w.target(f.relation, 'insert');
        w.nodes(f.cols);
        if (f.selectStmt !== undefined) w.select(f.selectStmt);
        w.returning(f.returningClause);
      });
    },
  },
  UpdateStmt: {
    fields: set('relation', 'targetList', 'whereClause', 'fromClause', 'returningClause', 'withClause'),
    visit(w, f) {
      w.withClause(f.withClause, w.takeTop(), () => {
        w.target(f.relation, 'update');
        w.nodes(f.targetList);
        w.nodes(f.fromClause);
        if (f.whereClause !== undefined) w.node(f.whereClause);
        w.returning(f.returningClause);
      });
    },
  },
  DeleteStmt: {
    fields: set('relation', 'usingClause', 'whereClause', 'returningClause', 'withClause'),
    visit(w, f) {
      w.withClause(f.withClause, w.takeTop(), () => {
        w.target(f.relation, 'delete');
        w.nodes(f.usingClause);
        if (f.whereClause !== undefined) w.node(f.whereClause);
        w.returning(f.returningClause);
      });
    },
  },
  RangeVar: {
    fields: RANGE_VAR_FIELDS,
    visit(w, f) {
      rangeVar(w, f);
      w.readRelation(f);
    },
  },
  JoinExpr: {
    fields: set(
      'jointype',
      'isNatural',
      'larg',
      'rarg',
      'usingClause',
      'join_using_alias',
      'quals',
      'alias',
      'rtindex',
    ),
    visit(w, f) {
      w.oneOf(f.jointype, ['JOIN_INNER', 'JOIN_LEFT', 'JOIN_FULL', 'JOIN_RIGHT'], 'Join type');
      w.node(f.larg);
      w.node(f.rarg);
      if (f.usingClause !== undefined) w.names(f.usingClause);
      if (f.join_using_alias !== undefined) w.visit('Alias', f.join_using_alias, ALIAS);
      if (f.quals !== undefined) w.node(f.quals);
      if (f.alias !== undefined) w.visit('Alias', f.alias, ALIAS);
    },
  },
  RangeSubselect: {
    fields: set('lateral', 'subquery', 'alias'),
    visit(w, f) {
      w.select(f.subquery);
      if (f.alias !== undefined) w.visit('Alias', f.alias, ALIAS);
    },
  },
  ResTarget: {
    fields: set('name', 'val'),
    visit(w, f) {
      if (f.val !== undefined) w.node(f.val);
    },
  },
  MultiAssignRef: {
    fields: set('source', 'colno', 'ncolumns'),
    visit(w, f) {
      w.node(f.source);
    },
  },
  SortBy: {
    fields: set('node', 'sortby_dir', 'sortby_nulls'),
    visit(w, f) {
      w.oneOf(f.sortby_dir, ['SORTBY_DEFAULT', 'SORTBY_ASC', 'SORTBY_DESC'], 'Sort direction');
      w.oneOf(
        f.sortby_nulls,
        ['SORTBY_NULLS_DEFAULT', 'SORTBY_NULLS_FIRST', 'SORTBY_NULLS_LAST'],
        'NULLS option',
      );
      w.node(f.node);
    },
  },
  ColumnRef: {
    fields: set('fields'),
    visit(w, f) {
      w.columnRef(f);
    },
  },
  A_Const: {
    fields: set('ival', 'fval', 'sval', 'boolval', 'isnull', 'bsval'),
    visit(w, f) {
      if (f.bsval !== undefined) {
        w.fail(
          'nonstandard_string_literal_not_allowed',
          "Bit-string literals (B'...', X'...') are not allowed.",
        );
      }
    },
  },
  A_Star: { fields: set(), visit: noVisit },
  String: { fields: set('sval'), visit: noVisit },
  List: {
    fields: set('items'),
    visit(w, f) {
      w.nodes(f.items);
    },
  },
  A_Expr: {
    fields: set('kind', 'name', 'lexpr', 'rexpr', 'rexpr_list_start', 'rexpr_list_end'),
    visit(w, f) {
      switch (f.kind) {
        case 'AEXPR_OP':
          w.operator(f.name, f.lexpr === undefined ? UNARY_OPERATORS : BINARY_OPERATORS);
          break;
        case 'AEXPR_DISTINCT':
        case 'AEXPR_NOT_DISTINCT':
          w.operator(f.name, EQUALS);
          break;
        case 'AEXPR_IN':
          w.operator(f.name, IN_OPERATORS);
          break;
        case 'AEXPR_LIKE':
        case 'AEXPR_ILIKE':
          w.operator(f.name, f.kind === 'AEXPR_LIKE' ? LIKE_OPERATORS : ILIKE_OPERATORS);
          if (f.lexpr !== undefined) w.node(f.lexpr);
          if (!likeEscape(w, f.rexpr)) w.node(f.rexpr);
          return;
        case 'AEXPR_BETWEEN':
        case 'AEXPR_NOT_BETWEEN':
        case 'AEXPR_BETWEEN_SYM':
        case 'AEXPR_NOT_BETWEEN_SYM':
          break;
        case 'AEXPR_NULLIF':
          w.function('nullif');
          break;
        case 'AEXPR_OP_ANY':
        case 'AEXPR_OP_ALL':
          w.fail(
            'construct_not_allowed',
            'Comparisons with ANY/ALL over arrays are not allowed.',
            'use IN (...) or a subquery',
          );
          break;
        case 'AEXPR_SIMILAR':
          w.fail('construct_not_allowed', 'SIMILAR TO is not allowed.', operatorHint('~'));
          break;
        default:
          w.fail('construct_not_allowed', `Expression kind ${String(f.kind)} is not allowed.`);
      }
      if (f.lexpr !== undefined) w.node(f.lexpr);
      if (f.rexpr !== undefined) w.node(f.rexpr);
    },
  },
  BoolExpr: {
    fields: set('boolop', 'args'),
    visit(w, f) {
      w.oneOf(f.boolop, ['AND_EXPR', 'OR_EXPR', 'NOT_EXPR'], 'Boolean operator');
      w.nodes(f.args);
    },
  },
  NullTest: {
    fields: set('arg', 'nulltesttype', 'argisrow'),
    visit(w, f) {
      w.oneOf(f.nulltesttype, ['IS_NULL', 'IS_NOT_NULL'], 'Null test');
      w.node(f.arg);
    },
  },
  BooleanTest: {
    fields: set('arg', 'booltesttype'),
    visit(w, f) {
      w.oneOf(
        f.booltesttype,
        ['IS_TRUE', 'IS_NOT_TRUE', 'IS_FALSE', 'IS_NOT_FALSE', 'IS_UNKNOWN', 'IS_NOT_UNKNOWN'],
        'Boolean test',
      );
      w.node(f.arg);
    },
  },
  TypeCast: {
    fields: set('arg', 'typeName'),
    visit(w, f) {
      w.typeName(f.typeName);
      w.node(f.arg);
    },
  },
  CaseExpr: {
    fields: set('arg', 'args', 'defresult'),
    visit(w, f) {
      if (f.arg !== undefined) w.node(f.arg);
      w.nodes(f.args);
      if (f.defresult !== undefined) w.node(f.defresult);
    },
  },
  CaseWhen: {
    fields: set('expr', 'result'),
    visit(w, f) {
      w.node(f.expr);
      w.node(f.result);
    },
  },
  CoalesceExpr: {
    fields: set('args'),
    visit(w, f) {
      w.function('coalesce');
      w.nodes(f.args);
    },
  },
  MinMaxExpr: {
    fields: set('op', 'args'),
    visit(w, f) {
      w.function(f.op === 'IS_LEAST' ? 'least' : 'greatest');
      w.oneOf(f.op, ['IS_GREATEST', 'IS_LEAST'], 'GREATEST/LEAST');
      w.nodes(f.args);
    },
  },
  SQLValueFunction: {
    fields: set('op', 'typmod'),
    visit(w, f) {
      w.function(functionLikeName('SQLValueFunction', f) ?? '');
    },
  },
  FuncCall: {
    fields: set('funcname', 'args', 'agg_order', 'agg_filter', 'agg_star', 'agg_distinct', 'funcformat'),
    visit(w, f) {
      const names = w.names(f.funcname);
      // Special syntax (EXTRACT(... FROM ...), SUBSTRING(... FROM ...) ...) comes as pg_catalog.name.
      const sqlSyntax =
        f.funcformat === 'COERCE_SQL_SYNTAX' && names.length === 2 && names[0] === 'pg_catalog';
      const name = sqlSyntax ? names[1]! : names.join('.');
      if (names.length !== 1 && !sqlSyntax) {
        const last = names[names.length - 1] ?? '';
        w.fail(
          'function_not_allowed',
          `Qualified function names are not allowed (${name}).`,
          w.isAllowedFunction(last) ? `write ${last}(...) without the schema` : functionHint(last),
        );
      }
      w.function(name);
      w.oneOf(f.funcformat, ['COERCE_EXPLICIT_CALL', 'COERCE_SQL_SYNTAX'], 'Call form');
      w.nodes(f.args);
      w.sortClause(f.agg_order);
      if (f.agg_filter !== undefined) w.node(f.agg_filter);
    },
  },
  SubLink: {
    fields: set('subLinkType', 'testexpr', 'operName', 'subselect'),
    visit(w, f) {
      w.oneOf(
        f.subLinkType,
        [
          'EXISTS_SUBLINK',
          'ALL_SUBLINK',
          'ANY_SUBLINK',
          'ROWCOMPARE_SUBLINK',
          'EXPR_SUBLINK',
          'MULTIEXPR_SUBLINK',
        ],
        'Subquery form',
      );
      if (f.operName !== undefined) w.operator(f.operName, COMPARISON_OPERATORS);
      if (f.testexpr !== undefined) w.node(f.testexpr);
      w.select(f.subselect);
    },
  },
  RowExpr: {
    fields: set('args', 'row_format', 'colnames'),
    visit(w, f) {
      w.oneOf(f.row_format, ['COERCE_IMPLICIT_CAST', 'COERCE_EXPLICIT_CALL'], 'Row form');
      if (f.colnames !== undefined) w.names(f.colnames);
      w.nodes(f.args);
    },
  },
  SetToDefault: { fields: set(), visit: noVisit },
  GroupingSet: {
    fields: set('kind', 'content'),
    visit(w, f) {
      w.oneOf(
        f.kind,
        [
          'GROUPING_SET_EMPTY',
          'GROUPING_SET_SIMPLE',
          'GROUPING_SET_ROLLUP',
          'GROUPING_SET_CUBE',
          'GROUPING_SET_SETS',
        ],
        'Grouping set',
      );
      w.nodes(f.content);
    },
  },
};

const EQUALS: ReadonlySet<string> = new Set(['=']);
const IN_OPERATORS: ReadonlySet<string> = new Set(['=', '<>']);
const LIKE_OPERATORS: ReadonlySet<string> = new Set(['~~', '!~~']);
const ILIKE_OPERATORS: ReadonlySet<string> = new Set(['~~*', '!~~*']);

/**
 * `x LIKE p ESCAPE e` arrives as `x ~~ pg_catalog.like_escape(p, e)`: walks the two arguments and
 * returns true; returns false for any other right-hand side, which the caller walks as usual.
 */
function likeEscape(w: Walker, rexpr: unknown): boolean {
  const entry = single(rexpr);
  if (entry?.[0] !== 'FuncCall' || !isFields(entry[1])) return false;
  const call = entry[1];
  const names = w.names(call.funcname);
  if (names.length !== 2 || names[0] !== 'pg_catalog' || names[1] !== 'like_escape') return false;
  const args = w.array(call.args);
  const extra = Object.keys(call).some((k) => !['funcname', 'args', 'funcformat', 'location'].includes(k));
  if (args.length !== 2 || extra || call.funcformat !== 'COERCE_EXPLICIT_CALL') return false;
  w.nodes(args);
  return true;
}
