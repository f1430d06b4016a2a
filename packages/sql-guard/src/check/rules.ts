import { columnRef } from './columns.js';
import { constant, copiedOperand, pairwise } from './expansion.js';
import {
  BINARY_OPERATORS,
  COMPARISON_OPERATORS,
  functionLikeName,
  operatorHint,
  UNARY_OPERATORS,
} from './names.js';
import { deleteStmt, insertStmt, selectStmt, sortClause, updateStmt } from './statements.js';
import { type Fields, isFields, single } from './tree.js';
import type { Walker } from './walker.js';

/**
 * The node allowlist: every node type that may appear in an accepted expression or statement, with the
 * exact set of fields it may carry besides `location`, and how its children are walked. FROM items,
 * select lists, WITH clauses and DML targets are walked by the walker itself (walker.ts), which keeps the
 * scopes that column references resolve in.
 */
export interface Rule {
  /** Fields the node may carry besides `location`. */
  fields: ReadonlySet<string>;
  visit(w: Walker, f: Fields): void;
  /** An expression PostgreSQL may fold into a value as long as its operands together (expansion.ts). */
  folds?: true;
}

const set = (...fields: string[]): ReadonlySet<string> => new Set(fields);
const noVisit = (): void => {};

export const RULES: Readonly<Record<string, Rule>> = {
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
      selectStmt(w, f);
    },
  },
  InsertStmt: {
    fields: set('relation', 'cols', 'selectStmt', 'returningClause', 'withClause', 'override'),
    visit(w, f) {
      insertStmt(w, f);
    },
  },
  UpdateStmt: {
    fields: set('relation', 'targetList', 'whereClause', 'fromClause', 'returningClause', 'withClause'),
    visit(w, f) {
      updateStmt(w, f);
    },
  },
  DeleteStmt: {
    fields: set('relation', 'usingClause', 'whereClause', 'returningClause', 'withClause'),
    visit(w, f) {
      deleteStmt(w, f);
    },
  },
  MultiAssignRef: {
    fields: set('source', 'colno', 'ncolumns'),
    visit(w, f) {
      w.node(f.source);
    },
  },
  ColumnRef: {
    fields: set('fields'),
    visit(w, f) {
      columnRef(w, f);
    },
  },
  A_Const: {
    fields: set('ival', 'fval', 'sval', 'boolval', 'isnull', 'bsval'),
    folds: true,
    visit(w, f) {
      if (f.bsval !== undefined) {
        w.fail(
          'nonstandard_string_literal_not_allowed',
          "Bit-string literals (B'...', X'...') are not allowed.",
        );
      }
      if (w.stringConsts && f.sval !== undefined && typeof f.location === 'number' && f.location >= 0)
        w.stringConsts.push(f.location);
      const text = constantText(f);
      if (text !== undefined) constant(w, text, w.at);
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
    folds: true,
    visit(w, f) {
      switch (f.kind) {
        case 'AEXPR_OP':
          if (PAIRWISE.has(w.operator(f.name, f.lexpr === undefined ? UNARY_OPERATORS : BINARY_OPERATORS))) {
            operands(w, f.lexpr, f.rexpr);
            return;
          }
          break;
        case 'AEXPR_DISTINCT':
        case 'AEXPR_NOT_DISTINCT':
          w.operator(f.name, EQUALS);
          break;
        case 'AEXPR_IN':
          w.operator(f.name, IN_OPERATORS);
          copiedOperand(w, f.lexpr, inCopies(f.lexpr, f.rexpr), 'IN');
          w.node(f.rexpr);
          return;
        case 'AEXPR_LIKE':
        case 'AEXPR_ILIKE':
          w.operator(f.name, f.kind === 'AEXPR_LIKE' ? LIKE_OPERATORS : ILIKE_OPERATORS);
          operands(w, f.lexpr, f.rexpr);
          return;
        case 'AEXPR_BETWEEN':
        case 'AEXPR_NOT_BETWEEN':
          copiedOperand(w, f.lexpr, 2, 'BETWEEN');
          w.node(f.rexpr);
          return;
        case 'AEXPR_BETWEEN_SYM':
        case 'AEXPR_NOT_BETWEEN_SYM': {
          // Four comparisons: x four times, each bound twice.
          copiedOperand(w, f.lexpr, 4, 'BETWEEN');
          copiedOperand(w, f.rexpr, 2, 'BETWEEN');
          return;
        }
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
    folds: true,
    visit(w, f) {
      w.oneOf(f.boolop, ['AND_EXPR', 'OR_EXPR', 'NOT_EXPR'], 'Boolean operator');
      w.nodes(f.args);
    },
  },
  NullTest: {
    fields: set('arg', 'nulltesttype', 'argisrow'),
    folds: true,
    visit(w, f) {
      w.oneOf(f.nulltesttype, ['IS_NULL', 'IS_NOT_NULL'], 'Null test');
      w.node(f.arg);
    },
  },
  BooleanTest: {
    fields: set('arg', 'booltesttype'),
    folds: true,
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
    folds: true,
    visit(w, f) {
      w.typeName(f.typeName);
      w.node(f.arg);
    },
  },
  CaseExpr: {
    fields: set('arg', 'args', 'defresult'),
    folds: true,
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
    folds: true,
    visit(w, f) {
      w.function('coalesce');
      w.nodes(f.args);
    },
  },
  MinMaxExpr: {
    fields: set('op', 'args'),
    folds: true,
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
    folds: true,
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
          w.isAllowedFunction(last) ? `write ${last}(...) without the schema` : w.functionHint(last),
        );
      }
      w.function(name);
      w.oneOf(f.funcformat, ['COERCE_EXPLICIT_CALL', 'COERCE_SQL_SYNTAX'], 'Call form');
      const start = w.value;
      w.nodes(f.args);
      if (AMPLIFIERS.has(name)) amplified(w, f.args, w.value - start);
      sortClause(w, f.agg_order);
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
      w.sublink(f);
    },
  },
  RowExpr: {
    fields: set('args', 'row_format', 'colnames'),
    folds: true,
    visit(w, f) {
      w.oneOf(f.row_format, ['COERCE_IMPLICIT_CAST', 'COERCE_EXPLICIT_CALL'], 'Row form');
      if (f.colnames !== undefined) w.names(f.colnames);
      w.nodes(f.args);
    },
  },
  SetToDefault: { fields: set(), visit: noVisit },
};

/**
 * How many copies of x PostgreSQL makes for `x IN (a, b, ...)` (transformAExprIn): constants share one `= ANY(array)`
 * comparison when there are two or more of them; every other item (a column, a subquery, an expression) gets a
 * comparison of its own with a copy of x, and so does every item when x is a row.
 */
function inCopies(lexpr: unknown, rexpr: unknown): number {
  const list = single(rexpr);
  if (list?.[0] !== 'List' || !isFields(list[1]) || !Array.isArray(list[1].items)) return 1;
  const items = list[1].items;
  if (single(lexpr)?.[0] === 'RowExpr') return Math.max(1, items.length);
  let constants = 0;
  for (const item of items) if (isConstant(item)) constants++;
  return Math.max(1, items.length - constants + Math.min(constants, 1));
}

/** A literal (`1`, `'a'`) or a typed literal (`DATE '2026-01-01'`, `'1'::int`). */
function isConstant(value: unknown): boolean {
  const entry = single(value);
  if (entry?.[0] === 'A_Const') return true;
  return entry?.[0] === 'TypeCast' && isFields(entry[1]) && single(entry[1].arg)?.[0] === 'A_Const';
}

/** Operators whose cost grows with the product of their operands' lengths (expansion.ts). */
const PAIRWISE: ReadonlySet<string> = new Set(['*', '/', '%']);

/**
 * The two operands of a matching or multiplying operator, walked and weighed: folding it takes a step per pair of
 * their bytes. The right operand of LIKE may be `like_escape(p, e)` (likeEscape).
 */
function operands(w: Walker, lexpr: unknown, rexpr: unknown): void {
  const start = w.value;
  if (lexpr !== undefined) w.node(lexpr);
  const middle = w.value;
  if (!likeEscape(w, rexpr)) w.node(rexpr);
  pairwise(w, middle - start, w.value - middle);
}

/** Functions whose result is as long as their count argument says (the second), not as their arguments. */
const AMPLIFIERS: ReadonlySet<string> = new Set(['repeat', 'lpad', 'rpad']);

/**
 * repeat(s, n), lpad(s, n), rpad(s, n) with a literal count fold to a value of up to n times their arguments'
 * length: the value weighs that. A computed count is not weighed (README, "Expanded size").
 */
function amplified(w: Walker, args: unknown, argsValue: number): void {
  const count = Array.isArray(args) ? single(args[1]) : undefined;
  if (count?.[0] !== 'A_Const' || !isFields(count[1])) return;
  const n = Number(constantText(count[1]) ?? 0);
  if (!Number.isFinite(n) || n <= 0) return;
  w.value += Math.min(n * Math.max(1, argsValue), 2 ** 40);
}

/** A constant's text as PostgreSQL reads it: a string's or a numeric's characters, an integer's digits. */
function constantText(f: Fields): string | undefined {
  const inner = (f.sval ?? f.fval ?? f.ival) as Fields | undefined;
  if (inner !== undefined) {
    const v = inner.sval ?? inner.fval ?? inner.ival;
    // libpg-query omits zero values: '' and 0 come as {}.
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0';
  }
  return f.boolval === undefined ? undefined : 'f';
}

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
