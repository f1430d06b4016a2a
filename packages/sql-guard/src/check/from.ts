import type { Access, Operation } from '../types.js';
import { cteNamed } from './ctes.js';
import { cteCopy, joinSizes, type Sizes } from './expansion.js';
import type { Rule } from './rules.js';
import {
  formatColumns,
  hidden,
  item,
  joinColumns,
  type Level,
  type NsItem,
  naturalColumns,
  renamed,
} from './scope.js';
import { type Fields, single } from './tree.js';
import type { Walker } from './walker.js';

/**
 * FROM items (and UPDATE ... FROM, DELETE ... USING, DML targets): what each brings into its query level,
 * with PostgreSQL's visibility rules (transformFromClauseItem): an item sees the earlier items of its FROM
 * only if LATERAL, a JOIN's ON sees only its two sides, an aliased join hides the tables inside it.
 */

/** What a FROM item adds to its level, and the columns it has as a whole (for the joins around it). */
interface FromItem {
  namespace: NsItem[];
  columns: readonly string[];
  sizes: Sizes;
  partial?: string;
}

const set = (...fields: string[]): ReadonlySet<string> => new Set(fields);
const PERMANENT = ['p'];
const JOIN_TYPES = ['JOIN_INNER', 'JOIN_LEFT', 'JOIN_FULL', 'JOIN_RIGHT'];

const ALIAS: Rule = {
  fields: set('aliasname', 'colnames'),
  visit(w, f) {
    if (f.colnames !== undefined) w.names(f.colnames);
  },
};
const RANGE_VAR_FIELDS = set('relname', 'schemaname', 'catalogname', 'inh', 'relpersistence', 'alias');
const RANGE_SUBSELECT_FIELDS = set('lateral', 'subquery', 'alias');
const JOIN_EXPR_FIELDS = set(
  'jointype',
  'isNatural',
  'larg',
  'rarg',
  'usingClause',
  'join_using_alias',
  'quals',
  'alias',
  'rtindex',
);

/** FROM (or UPDATE ... FROM, DELETE ... USING): each item sees the earlier ones only if LATERAL. */
export function fromClause(w: Walker, value: unknown, level: Level): void {
  if (value === undefined) return;
  for (const entryValue of w.array(value)) {
    const { namespace } = fromItem(w, entryValue, level);
    for (const i of namespace) i.lateralOnly = true;
    level.items.push(...namespace);
  }
  for (const i of level.items) i.lateralOnly = false;
}

function fromItem(w: Walker, value: unknown, level: Level): FromItem {
  const entry = single(value);
  if (!entry) w.fail('construct_not_allowed', 'The parse tree holds an unexpected value.');
  const [type, f] = entry;
  const fields =
    type === 'RangeVar'
      ? RANGE_VAR_FIELDS
      : type === 'RangeSubselect'
        ? RANGE_SUBSELECT_FIELDS
        : type === 'JoinExpr'
          ? JOIN_EXPR_FIELDS
          : undefined;
  // Anything else (functions in FROM, TABLESAMPLE, XMLTABLE ...) is rejected by enter.
  const saved = w.enter(type, f, fields);
  const fi = f as Fields;
  const result =
    type === 'RangeVar'
      ? rangeVar(w, fi)
      : type === 'RangeSubselect'
        ? rangeSubselect(w, fi, level)
        : joinExpr(w, fi, level);
  w.leave(saved);
  return result;
}

function rangeVar(w: Walker, f: Fields): FromItem {
  w.oneOf(f.relpersistence, PERMANENT, 'Relation persistence');
  const alias = aliasOf(w, f.alias);
  const name = f.relname as string;
  let columns: readonly string[];
  let sizes: Sizes;
  const cte = f.schemaname === undefined && f.catalogname === undefined ? cteNamed(w.ctes, name) : undefined;
  if (cte) {
    if (!cte.columns) {
      w.fail(
        'construct_not_allowed',
        `WITH RECURSIVE item ${name} is referenced before its columns are known.`,
        `give it a column list, e.g. ${name}(a, b) AS (...), or reference it only in the recursive arm of its UNION`,
      );
    }
    columns = cte.columns;
    sizes = cte.sizes;
    // Where PostgreSQL inlines it, each reference holds a copy of its query (the walk counted it once more).
    cte.refs++;
    if (cte.inlined) cteCopy(w, name, cte.inlined);
  } else {
    columns = baseRelation(w, f, 'select');
  }
  const partial = cte ? undefined : partialName(w, name);
  if (partial && alias?.columns) positionalOnPartial(w, partial, 'A column alias list');
  const refname = alias?.name ?? name;
  const own = renamed(columns, alias?.columns);
  if (!own) tooManyAliases(w, refname, columns);
  return { namespace: [item(refname, own, sizes, partial)], columns: own, sizes, partial };
}

function rangeSubselect(w: Walker, f: Fields, level: Level): FromItem {
  const lateral = f.lateral === true;
  const saved = level.lateralActive;
  level.lateralActive = lateral;
  const outputs = w.select(f.subquery);
  const sizes = w.outputSizes;
  level.lateralActive = saved;
  const alias = aliasOf(w, f.alias);
  const columns = renamed(outputs, alias?.columns);
  if (!columns) tooManyAliases(w, alias?.name ?? 'subquery', outputs);
  return { namespace: [item(alias?.name, columns, sizes)], columns, sizes };
}

function joinExpr(w: Walker, f: Fields, level: Level): FromItem {
  w.oneOf(f.jointype, JOIN_TYPES, 'Join type');
  const left = fromItem(w, f.larg, level);
  // The left side is visible to a LATERAL item on the right side (PostgreSQL: lateral-only).
  const mark = level.items.length;
  for (const i of left.namespace) i.lateralOnly = true;
  level.items.push(...left.namespace);
  const right = fromItem(w, f.rarg, level);
  level.items.length = mark;
  const mine = [...left.namespace, ...right.namespace];
  for (const i of mine) i.lateralOnly = false;

  let using: string[] | undefined;
  if (f.usingClause !== undefined) {
    using = w.names(f.usingClause);
    for (const name of using) {
      if (!left.columns.includes(name) || !right.columns.includes(name)) {
        w.fail(
          'column_not_allowed',
          `USING (${name}) names no column of both sides of the join.`,
          `columns of the left side: ${formatColumns(left.columns)}; of the right side: ${formatColumns(right.columns)}`,
        );
      }
    }
  } else if (f.isNatural === true) {
    const partial = left.partial ?? right.partial;
    if (partial) positionalOnPartial(w, partial, 'A NATURAL join');
    using = naturalColumns(left.columns, right.columns);
  }
  if (f.quals !== undefined) {
    // ON sees the two sides of this join and the outer levels, nothing else of this level.
    const saved = level.items;
    level.items = mine;
    w.node(f.quals);
    level.items = saved;
  }
  const joined = joinColumns(left.columns, right.columns, using);
  const sizes = joinSizes(left, right, using);
  const usingAlias = aliasOf(w, f.join_using_alias);
  const alias = aliasOf(w, f.alias);
  const partial = left.partial ?? right.partial;
  if (partial && alias?.columns) positionalOnPartial(w, partial, 'A column alias list');
  const columns = renamed(joined, alias?.columns);
  if (!columns) tooManyAliases(w, alias?.name ?? 'join', joined);
  // An aliased join hides the items inside it; otherwise they stay visible as qualifiers only.
  const namespace: NsItem[] = [];
  if (!alias) for (const i of mine) namespace.push(hidden(i));
  namespace.push(item(alias?.name, columns, sizes, partial));
  if (usingAlias) {
    namespace.push({
      refname: usingAlias.name,
      columns: using ?? [],
      colsVisible: false,
      lateralOnly: false,
      sizes: sizes?.slice(0, using?.length ?? 0),
      partial: undefined,
    });
  }
  return { namespace, columns, sizes, partial };
}

function aliasOf(w: Walker, value: unknown): { name: string; columns: string[] | undefined } | undefined {
  if (value === undefined) return undefined;
  w.visit('Alias', value, ALIAS);
  const f = value as Fields;
  return {
    name: f.aliasname as string,
    columns: f.colnames === undefined ? undefined : w.names(f.colnames),
  };
}

function tooManyAliases(w: Walker, name: string, columns: readonly string[]): never {
  return w.fail(
    'column_not_allowed',
    `The alias list of ${name} names more columns than it has.`,
    `columns of ${name}: ${formatColumns(columns)}`,
  );
}

/** A base relation, checked against the dialect and recorded with its access; returns its columns. */
function baseRelation(w: Walker, f: Fields, op: Operation): readonly string[] {
  const name = f.relname as string;
  const saved = w.at;
  if (typeof f.location === 'number' && f.location >= 0) w.at = f.location;
  if (f.schemaname !== undefined || f.catalogname !== undefined) {
    const qualified = [f.catalogname, f.schemaname, name].filter((p) => p !== undefined).join('.');
    w.fail(
      'relation_not_allowed',
      `Qualified relation names are not allowed (${qualified}).`,
      w.dialect.relations.has(name)
        ? `write ${name} without the schema`
        : `available relations: ${w.dialect.relationList}`,
    );
  }
  const relation = w.dialect.relations.get(name);
  if (!relation) {
    w.fail(
      'relation_not_allowed',
      `Relation ${name} is not available.`,
      `available relations: ${w.dialect.relationList}`,
    );
  }
  if (!relation.operations.has(op)) {
    const allowed = [...relation.operations].map((o) => o.toUpperCase()).join(', ');
    w.fail(
      'operation_not_allowed',
      `${op.toUpperCase()} on ${name} is not allowed (it allows ${allowed || 'nothing'}).`,
      op === 'select'
        ? undefined
        : `${name} is read-only; write to the relations that allow ${op.toUpperCase()}`,
    );
  }
  const access: Access = op === 'select' ? 'read' : op;
  w.access(name, access);
  w.at = saved;
  return relation.columns;
}

/** A DML target: always a base relation (PostgreSQL never resolves it to a CTE). */
export function dmlTarget(w: Walker, value: unknown, op: Operation): NsItem {
  const saved = w.enter('RangeVar', value, RANGE_VAR_FIELDS);
  const f = value as Fields;
  w.oneOf(f.relpersistence, PERMANENT, 'Relation persistence');
  const alias = aliasOf(w, f.alias);
  const columns = baseRelation(w, f, op);
  if (alias?.columns) w.fail('construct_not_allowed', 'A column alias list on the target is not allowed.');
  w.leave(saved);
  const partial = partialName(w, f.relname as string);
  return item(alias?.name ?? (f.relname as string), columns, undefined, partial);
}

function partialName(w: Walker, name: string): string | undefined {
  return w.dialect.relations.get(name)?.partial ? name : undefined;
}

/**
 * Something positional over a partial relation: PostgreSQL counts the table's private columns too, so `*`, NATURAL,
 * an alias list or an INSERT without columns would mean other columns than the guard sees.
 */
export function positionalOnPartial(w: Walker, relation: string, what: string): never {
  const columns = w.dialect.relations.get(relation)?.columns ?? [];
  return w.fail(
    'column_not_allowed',
    `${what} is not allowed over ${relation}, whose other columns are private.`,
    `name the columns of ${relation} that may be named: ${formatColumns(columns)}`,
  );
}

/** A target column of INSERT (...) or UPDATE ... SET, which must be a column of the target. */
export function targetColumn(w: Walker, target: NsItem, name: unknown): void {
  if (typeof name === 'string' && target.columns.includes(name)) return;
  w.fail(
    'column_not_allowed',
    `Column ${String(name)} is not a column of the target relation.`,
    `columns of ${target.refname}: ${formatColumns(target.columns)}`,
  );
}
