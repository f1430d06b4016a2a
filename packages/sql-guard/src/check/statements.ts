import { figureColname } from './colname.js';
import type { CteScope } from './ctes.js';
import { addSizes, maxWeight, ONE_NODE, starCopy, type Weight } from './expansion.js';
import { dmlTarget, fromClause, positionalOnPartial, targetColumn } from './from.js';
import type { Rule } from './rules.js';
import {
  findRefname,
  formatColumns,
  item,
  Level,
  type NsItem,
  renamed,
  resolvesLocally,
  starItems,
} from './scope.js';
import { type Fields, isFields, nodeType, single, stringValue } from './tree.js';
import type { Walker } from './walker.js';

/**
 * The query structure: SELECT (set operations and VALUES included), INSERT, UPDATE, DELETE, WITH, select
 * lists, ORDER BY and GROUP BY. Each statement is a query level of its own (scope.ts); what a level's
 * FROM clause brings into scope comes from from.ts.
 */

const set = (...fields: string[]): ReadonlySet<string> => new Set(fields);
const noVisit = (): void => {};

const SETOPS = ['SETOP_NONE', 'SETOP_UNION', 'SETOP_INTERSECT', 'SETOP_EXCEPT'];
const GROUPING_SET_KINDS = [
  'GROUPING_SET_EMPTY',
  'GROUPING_SET_SIMPLE',
  'GROUPING_SET_ROLLUP',
  'GROUPING_SET_CUBE',
  'GROUPING_SET_SETS',
];
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
const OVERRIDING = ['OVERRIDING_NOT_SET'];
const SORT_BY_FIELDS = set('node', 'sortby_dir', 'sortby_nulls');
const SORT_DIRECTIONS = ['SORTBY_DEFAULT', 'SORTBY_ASC', 'SORTBY_DESC'];
const SORT_NULLS = ['SORTBY_NULLS_DEFAULT', 'SORTBY_NULLS_FIRST', 'SORTBY_NULLS_LAST'];
const GROUPING_SET_FIELDS = set('kind', 'content');
const RETURNING_CLAUSE: Rule = { fields: set('exprs'), visit: noVisit };
/** A select-list item; its value is walked by targetList. */
const RES_TARGET_SHELL: Rule = { fields: set('name', 'val'), visit: noVisit };
/** A bare name that names an output column: its fields are checked, nothing is resolved. */
const COLUMN_REF_SHELL: Rule = {
  fields: set('fields'),
  visit(w, f) {
    w.names(f.fields);
  },
};
const INSERT_COLUMN_FIELDS = set('name');
const LIST_FIELDS = set('items');
const SET_ITEM_FIELDS = set('name', 'val');

export function selectStmt(w: Walker, f: Fields): void {
  const hook = w.leftArmHook;
  w.leftArmHook = undefined;
  const outer = w.level;
  const level = new Level(outer);
  w.level = level;
  // A violation anywhere ends the walk, so scopes are restored on the normal path only.
  const ctes = withClause(w, f.withClause, w.takeTop());
  w.oneOf(f.op, SETOPS, 'Set operation');
  if (f.op !== undefined && f.op !== 'SETOP_NONE') {
    setOperation(w, f, level, hook);
  } else {
    if (f.larg !== undefined || f.rarg !== undefined)
      w.fail('construct_not_allowed', 'Unexpected set-operation arms.');
    let outputs: readonly string[];
    let sizes: Weight[];
    if (f.valuesLists !== undefined) {
      if (f.targetList !== undefined || f.fromClause !== undefined)
        w.fail('construct_not_allowed', 'Unexpected VALUES form.');
      sizes = [];
      outputs = valuesLists(w, f.valuesLists, sizes);
      // ORDER BY and LIMIT of a VALUES list see its columns (column1, column2 ...).
      level.items.push(item('*VALUES*', outputs, undefined));
    } else {
      fromClause(w, f.fromClause, level);
      sizes = [];
      outputs = targetList(w, f.targetList, sizes);
      if (f.distinctClause !== undefined) {
        const items = w.array(f.distinctClause);
        // Plain DISTINCT is a list holding one empty node; DISTINCT ON lists expressions.
        if (!(items.length === 1 && isFields(items[0]) && Object.keys(items[0]).length === 0))
          for (const d of items) orderingExpression(w, d, outputs);
      }
      if (f.whereClause !== undefined) w.node(f.whereClause);
      if (f.groupClause !== undefined) for (const g of w.array(f.groupClause)) groupItem(w, g, outputs);
      if (f.havingClause !== undefined) w.node(f.havingClause);
    }
    sortClause(w, f.sortClause, outputs);
    limits(w, f);
    w.outputs = outputs;
    w.outputSizes = sizes;
  }
  w.ctes = ctes;
  w.level = outer;
}

function setOperation(
  w: Walker,
  f: Fields,
  level: Level,
  hook: ((names: readonly string[]) => void) | undefined,
): void {
  if (f.valuesLists !== undefined || f.targetList !== undefined || f.fromClause !== undefined)
    w.fail('construct_not_allowed', 'Unexpected set-operation form.');
  const outputs = w.select(f.larg);
  const left = w.outputSizes;
  hook?.(outputs);
  w.select(f.rarg);
  const sizes = addSizes(left, w.outputSizes, outputs.length);
  // ORDER BY of a set operation sees its output columns only (PostgreSQL's transformSetOperationStmt).
  level.items.push(item(undefined, outputs, undefined));
  sortClause(w, f.sortClause, outputs);
  limits(w, f);
  w.outputs = outputs;
  w.outputSizes = sizes;
}

function limits(w: Walker, f: Fields): void {
  if (f.limitOffset !== undefined) w.node(f.limitOffset);
  if (f.limitCount !== undefined) w.node(f.limitCount);
  w.oneOf(
    f.limitOption,
    ['LIMIT_OPTION_DEFAULT', 'LIMIT_OPTION_COUNT', 'LIMIT_OPTION_WITH_TIES'],
    'Limit option',
  );
}

/**
 * An INSERT, UPDATE or DELETE: a query level of its own with the statement's WITH clause in scope, what `body`
 * walks (its target and clauses, into that level), and RETURNING as its output.
 */
function dmlStatement(w: Walker, f: Fields, body: (level: Level) => void): void {
  const outer = w.level;
  const level = new Level(outer);
  w.level = level;
  const ctes = withClause(w, f.withClause, w.takeTop());
  body(level);
  w.outputs = returning(w, f.returningClause);
  w.outputSizes = undefined;
  w.ctes = ctes;
  w.level = outer;
}

/**
 * The ResTarget items of an INSERT's column list or an UPDATE's SET: each names a column of the target, and
 * a SET item's value is an expression of the statement.
 */
function columnItems(w: Walker, list: unknown, target: NsItem, what: 'The column list' | 'SET'): void {
  const withValue = what === 'SET';
  for (const value of w.array(list)) {
    const entry = single(value);
    if (entry?.[0] !== 'ResTarget') w.fail('construct_not_allowed', `${what} holds an unexpected item.`);
    const saved = w.enter('ResTarget', entry[1], withValue ? SET_ITEM_FIELDS : INSERT_COLUMN_FIELDS);
    const column = entry[1] as Fields;
    targetColumn(w, target, column.name);
    if (withValue) w.node(column.val);
    w.leave(saved);
  }
}

export function insertStmt(w: Walker, f: Fields): void {
  dmlStatement(w, f, (level) => {
    w.oneOf(f.override, OVERRIDING, 'OVERRIDING');
    const target = dmlTarget(w, f.relation, 'insert');
    if (f.cols !== undefined) columnItems(w, f.cols, target, 'The column list');
    else if (target.partial && f.selectStmt !== undefined)
      positionalOnPartial(w, target.partial, 'An INSERT without a column list');
    // The inserted rows do not see the target (PostgreSQL adds it to the namespace for RETURNING only).
    if (f.selectStmt !== undefined) w.select(f.selectStmt);
    level.items.push(target);
  });
}

export function updateStmt(w: Walker, f: Fields): void {
  dmlStatement(w, f, (level) => {
    const target = dmlTarget(w, f.relation, 'update');
    level.items.push(target);
    fromClause(w, f.fromClause, level);
    columnItems(w, f.targetList, target, 'SET');
    if (f.whereClause !== undefined) w.node(f.whereClause);
  });
}

export function deleteStmt(w: Walker, f: Fields): void {
  dmlStatement(w, f, (level) => {
    level.items.push(dmlTarget(w, f.relation, 'delete'));
    fromClause(w, f.usingClause, level);
    if (f.whereClause !== undefined) w.node(f.whereClause);
  });
}

/**
 * Puts the CTEs of a WITH clause in scope for the rest of the statement and returns the scope to restore
 * after it. Non-recursive WITH: each CTE sees only the CTEs listed before it. WITH RECURSIVE: every item
 * sees every item, and a self-reference (in the recursive arm of a UNION) sees the columns of the
 * non-recursive arm; its items must all be reads. The statement's body sees them all. A CTE name never
 * names a DML target.
 */
function withClause(w: Walker, value: unknown, allowWrites: boolean): CteScope | undefined {
  const outer = w.ctes;
  if (value === undefined) return outer;
  w.visit('WithClause', value, WITH_CLAUSE);
  const wc = value as Fields;
  const recursive = wc.recursive === true;
  const scope: CteScope = { ctes: new Map(), parent: w.ctes };
  const items: Fields[] = [];
  for (const entryValue of w.array(wc.ctes)) {
    const entry = single(entryValue);
    if (entry?.[0] !== 'CommonTableExpr')
      w.fail('construct_not_allowed', 'The WITH clause holds an unexpected item.');
    w.visit('CommonTableExpr', entry[1], COMMON_TABLE_EXPR);
    items.push(entry[1] as Fields);
  }
  w.ctes = scope;
  if (recursive) {
    for (const cte of items) {
      const aliases = cte.aliascolnames === undefined ? undefined : w.names(cte.aliascolnames);
      scope.ctes.set(cte.ctename as string, {
        columns: aliases,
        sizes: undefined,
        inlined: undefined,
        refs: 0,
      });
    }
  }
  for (const cte of items) {
    const saved = w.at;
    if (typeof cte.location === 'number') w.at = cte.location;
    const query = single(cte.ctequery);
    if (!query || !['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(query[0])) {
      w.fail('construct_not_allowed', 'A WITH item must be SELECT, INSERT, UPDATE or DELETE.');
    }
    if (query[0] !== 'SelectStmt' && recursive) {
      w.fail(
        'construct_not_allowed',
        `The data-modifying WITH item ${String(cte.ctename)} is not allowed in WITH RECURSIVE.`,
        'WITH RECURSIVE may only read; write in a statement of its own',
      );
    }
    if (query[0] !== 'SelectStmt' && !allowWrites) {
      w.fail(
        'construct_not_allowed',
        `The data-modifying WITH item ${String(cte.ctename)} is allowed only in the WITH clause of the statement itself.`,
      );
    }
    w.at = saved;
    const name = cte.ctename as string;
    const aliases = cte.aliascolnames === undefined ? undefined : w.names(cte.aliascolnames);
    const entry = scope.ctes.get(name);
    if (recursive && entry && entry.columns === undefined) {
      // Known from the non-recursive arm on, for the self-reference in the recursive arm.
      w.leftArmHook = (names) => {
        entry.columns = names;
      };
    }
    const refs = entry?.refs ?? 0;
    const before = w.mark();
    const outputs = w.statement(cte.ctequery);
    w.leftArmHook = undefined;
    const columns = renamed(outputs, aliases);
    if (typeof cte.location === 'number') w.at = cte.location;
    if (!columns) {
      w.fail(
        'column_not_allowed',
        `WITH item ${name} names ${aliases!.length} columns but its query has ${outputs.length}.`,
        `columns of its query: ${formatColumns(outputs)}`,
      );
    }
    if (recursive && entry && entry.refs > refs) recursiveItem(w, name, query[1]);
    w.at = saved;
    // PostgreSQL never inlines a MATERIALIZED or data-modifying CTE: it is computed once, its columns are Vars.
    const inline = query[0] === 'SelectStmt' && cte.ctematerialized !== 'CTEMaterializeAlways';
    scope.ctes.set(name, {
      columns,
      sizes: inline ? w.outputSizes : undefined,
      inlined: inline ? w.since(before) : undefined,
      refs: 0,
    });
  }
  return outer;
}

/**
 * A WITH RECURSIVE item that references itself: its arms combine with UNION ALL. UNION (distinct) keeps every row
 * the recursion ever produced in memory to remove duplicates, unbounded by work_mem or temp_file_limit.
 */
function recursiveItem(w: Walker, name: string, query: unknown): void {
  const f = query as Fields;
  if (f.op === 'SETOP_UNION' && f.all !== true) {
    w.fail(
      'construct_not_allowed',
      `The recursive WITH item ${name} combines its arms with UNION, which keeps every row it produces in memory to remove duplicates.`,
      'use UNION ALL plus a WHERE bound in the recursive arm (e.g. WHERE n < 100)',
    );
  }
}

/** A select list; returns its output names (star expansions included) and pushes their expanded weights. */
function targetList(w: Walker, value: unknown, sizes: Weight[]): string[] {
  const outputs: string[] = [];
  if (value === undefined) return outputs;
  for (const t of w.array(value)) {
    if (nodeType(t) !== 'ResTarget')
      w.fail('construct_not_allowed', 'The select list holds an unexpected item.');
    const f = (t as Fields).ResTarget;
    w.visit('ResTarget', f, RES_TARGET_SHELL);
    const r = f as Fields;
    if (starExpansion(w, r.val, outputs, sizes)) continue;
    const before = w.mark();
    if (r.val !== undefined) w.node(r.val);
    sizes.push(w.since(before));
    outputs.push(typeof r.name === 'string' ? r.name : figureColname(r.val, w.sublinkNames));
  }
  return outputs;
}

/**
 * `*` or `t.*` as a select-list item: pushes the columns it expands to and their sizes and returns true, or
 * returns false when it is something else.
 */
function starExpansion(w: Walker, val: unknown, outputs: string[], sizes: Weight[]): boolean {
  const ref = nodeType(val) === 'ColumnRef' ? (val as Fields).ColumnRef : undefined;
  if (!isFields(ref) || !Array.isArray(ref.fields)) return false;
  const parts = ref.fields;
  if (nodeType(parts[parts.length - 1]) !== 'A_Star') return false;
  w.starTarget = ref;
  w.node(val);
  w.starTarget = undefined;
  const qualifier = parts.length === 1 ? undefined : stringValue(parts[0]);
  const found = qualifier === undefined ? undefined : findRefname(w.level, qualifier);
  const items = parts.length === 1 ? starItems(w.level) : found ? [found] : [];
  const partial = items.find((i) => i.partial)?.partial;
  if (partial) positionalOnPartial(w, partial, parts.length === 1 ? '*' : `${qualifier}.*`);
  for (const i of items) {
    starCopy(w, i);
    outputs.push(...i.columns);
    for (let c = 0; c < i.columns.length; c++) sizes.push(i.sizes?.[c] ?? ONE_NODE);
  }
  return true;
}

function returning(w: Walker, value: unknown): string[] {
  if (value === undefined) return [];
  w.visit('ReturningClause', value, RETURNING_CLAUSE);
  return targetList(w, (value as Fields).exprs, []);
}

/** A VALUES list; returns its column names and pushes each column's largest expanded weight over the rows. */
function valuesLists(w: Walker, value: unknown, sizes: Weight[]): string[] {
  for (const row of w.array(value)) {
    const list = nodeType(row) === 'List' ? (row as Fields).List : undefined;
    if (!isFields(list)) w.fail('construct_not_allowed', 'VALUES holds an unexpected row.');
    const saved = w.enter('List', list, LIST_FIELDS);
    const items = list.items === undefined ? [] : w.array(list.items);
    for (let i = 0; i < items.length; i++) {
      const before = w.mark();
      w.node(items[i]);
      sizes[i] = maxWeight(sizes[i], w.since(before));
    }
    w.leave(saved);
  }
  const names: string[] = [];
  for (let i = 0; i < sizes.length; i++) names.push(`column${i + 1}`);
  return names;
}

/** ORDER BY items of a query (`outputs` given: bare names may name output columns) or of an aggregate. */
export function sortClause(w: Walker, value: unknown, outputs?: readonly string[]): void {
  if (value === undefined) return;
  for (const entryValue of w.array(value)) {
    if (nodeType(entryValue) !== 'SortBy')
      w.fail('construct_not_allowed', 'ORDER BY holds an unexpected item.');
    const f = (entryValue as Fields).SortBy as Fields;
    const saved = w.enter('SortBy', f, SORT_BY_FIELDS);
    w.oneOf(f.sortby_dir, SORT_DIRECTIONS, 'Sort direction');
    w.oneOf(f.sortby_nulls, SORT_NULLS, 'NULLS option');
    if (outputs) orderingExpression(w, f.node, outputs);
    else w.node(f.node);
    w.leave(saved);
  }
}

/** ORDER BY and DISTINCT ON: a bare name names an output column first (findTargetlistEntrySQL92). */
function orderingExpression(w: Walker, value: unknown, outputs: readonly string[]): void {
  const name = bareName(value);
  if (name !== undefined && outputs.includes(name)) {
    w.visit('ColumnRef', single(value)![1], COLUMN_REF_SHELL);
    return;
  }
  w.node(value);
}

/** GROUP BY: a bare name is a column of this level's FROM items first, else an output column. */
function groupItem(w: Walker, value: unknown, outputs: readonly string[]): void {
  const name = bareName(value);
  if (name !== undefined && !resolvesLocally(w.level, name) && outputs.includes(name)) {
    w.visit('ColumnRef', single(value)![1], COLUMN_REF_SHELL);
    return;
  }
  const entry = single(value);
  if (entry?.[0] === 'GroupingSet') {
    w.visit('GroupingSet', entry[1], {
      fields: GROUPING_SET_FIELDS,
      visit: (w, f) => {
        w.oneOf(f.kind, GROUPING_SET_KINDS, 'Grouping set');
        for (const c of f.content === undefined ? [] : w.array(f.content)) groupItem(w, c, outputs);
      },
    });
    return;
  }
  w.node(value);
}

/** The name of a one-part, non-star ColumnRef, else undefined. */
function bareName(value: unknown): string | undefined {
  const entry = single(value);
  if (entry?.[0] !== 'ColumnRef' || !isFields(entry[1]) || !Array.isArray(entry[1].fields)) return undefined;
  const parts = entry[1].fields;
  return parts.length === 1 ? stringValue(parts[0]) : undefined;
}
