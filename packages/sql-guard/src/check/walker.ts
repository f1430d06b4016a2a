import type { Access, GuardErrorCode, Operation, RelationAccess } from '../types.js';
import { figureColname } from './colname.js';
import type { Denial } from './denials.js';
import { DENIED_FIELDS, DENIED_NODES } from './denials.js';
import type { CompiledDialect } from './dialect.js';
import { canonicalType, functionHint, functionLikeName, operatorHint } from './names.js';
import { RULES, type Rule } from './rules.js';
import {
  columnsInScope,
  findRefname,
  formatColumns,
  item,
  joinColumns,
  Level,
  type NsItem,
  naturalColumns,
  renamed,
  resolvesBare,
  resolvesLocally,
  starColumns,
} from './scope.js';
import { type Fields, isFields, single, stringValue } from './tree.js';
import { violation } from './violation.js';

/**
 * The default-deny walk over one statement's parse tree. Every node type that may appear is a key of
 * RULES (rules.ts), with the exact set of fields it may carry; anything else rejects the statement. The
 * walk is recursive but bounded: MAX_DEPTH nested nodes at most. While it walks, it keeps PostgreSQL's
 * scopes (scope.ts) and refuses every column reference that does not resolve.
 */
export const MAX_DEPTH = 256;

const LOCATION = 'location';

/** A CTE in scope; `columns` is undefined while a WITH RECURSIVE item's columns are not known yet. */
interface Cte {
  columns: string[] | undefined;
}

interface CteScope {
  ctes: Map<string, Cte>;
  parent: CteScope | undefined;
}

/** What a FROM item adds to its level, and the columns it has as a whole (for the joins around it). */
interface FromItem {
  namespace: NsItem[];
  columns: readonly string[];
}

export class Walker {
  private depth = 0;
  private at: number;
  private ctes: CteScope | undefined;
  private level: Level | undefined;
  private top = true;
  private readonly accesses = new Map<string, RelationAccess>();
  /** Output names of the statement node visited last (set by select/insert/update/delete). */
  private outputs: string[] = [];
  /** The select-list ColumnRef currently allowed to end in `*` (a star expansion, not a whole-row value). */
  private starTarget: unknown;
  /** EXPR sublinks walked so far, to the name of their subquery's first column (for figureColname). */
  private readonly sublinkNames = new WeakMap<object, string>();
  /** Called between the arms of the next set operation: a WITH RECURSIVE item learns its columns there. */
  private leftArmHook: ((names: string[]) => void) | undefined;
  private readonly subqueryName = (sublink: object) => this.sublinkNames.get(sublink);

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

  deny(denial: Denial): never {
    const hint = typeof denial.hint === 'function' ? denial.hint(this.dialect) : denial.hint;
    return this.fail(denial.code, denial.message, hint);
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
      if (denial) this.deny(denial);
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
    if (denial) this.deny(denial);
    const fn = functionLikeName(type, f);
    if (fn)
      this.fail(
        'function_not_allowed',
        `Function ${fn.toUpperCase()} is not allowed.`,
        functionHint(fn, this.dialect),
      );
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
      const sval = stringValue(item);
      if (sval === undefined) this.fail('construct_not_allowed', 'The parse tree holds an unexpected name.');
      return sval;
    });
  }

  oneOf(value: unknown, allowed: readonly string[], what: string): void {
    if (value !== undefined && !allowed.includes(value as string)) {
      this.fail('construct_not_allowed', `${what} ${String(value)} is not allowed.`);
    }
  }

  /** The first statement node visited is the top level, where data-modifying WITH is allowed. */
  private takeTop(): boolean {
    const top = this.top;
    this.top = false;
    return top;
  }

  /** Runs `body` in a new query level whose outer level is the current one. */
  private inLevel<T>(body: (level: Level) => T): T {
    const saved = this.level;
    const level = new Level(saved);
    this.level = level;
    try {
      return body(level);
    } finally {
      this.level = saved;
    }
  }

  // --- statements -------------------------------------------------------------------------------

  selectStmt(f: Fields): void {
    const hook = this.leftArmHook;
    this.leftArmHook = undefined;
    const top = this.takeTop();
    this.inLevel((level) =>
      this.withClause(f.withClause, top, () => {
        this.oneOf(f.op, SETOPS, 'Set operation');
        if (f.op !== undefined && f.op !== 'SETOP_NONE') {
          this.setOperation(f, level, hook);
          return;
        }
        if (f.larg !== undefined || f.rarg !== undefined)
          this.fail('construct_not_allowed', 'Unexpected set-operation arms.');
        let outputs: string[];
        if (f.valuesLists !== undefined) {
          if (f.targetList !== undefined || f.fromClause !== undefined)
            this.fail('construct_not_allowed', 'Unexpected VALUES form.');
          outputs = this.valuesLists(f.valuesLists);
          // ORDER BY and LIMIT of a VALUES list see its columns (column1, column2 ...).
          level.items.push(item('*VALUES*', outputs));
        } else {
          this.fromClause(f.fromClause, level);
          outputs = this.targetList(f.targetList);
          if (f.distinctClause !== undefined) {
            const items = this.array(f.distinctClause);
            // Plain DISTINCT is a list holding one empty node; DISTINCT ON lists expressions.
            if (!(items.length === 1 && isFields(items[0]) && Object.keys(items[0]).length === 0))
              for (const d of items) this.orderingExpression(d, outputs);
          }
          if (f.whereClause !== undefined) this.node(f.whereClause);
          if (f.groupClause !== undefined)
            for (const g of this.array(f.groupClause)) this.groupItem(g, outputs);
          if (f.havingClause !== undefined) this.node(f.havingClause);
        }
        this.sortClause(f.sortClause, outputs);
        this.limits(f);
        this.outputs = outputs;
      }),
    );
  }

  private setOperation(f: Fields, level: Level, hook: ((names: string[]) => void) | undefined): void {
    if (f.valuesLists !== undefined || f.targetList !== undefined || f.fromClause !== undefined)
      this.fail('construct_not_allowed', 'Unexpected set-operation form.');
    const outputs = this.select(f.larg);
    hook?.(outputs);
    this.select(f.rarg);
    // ORDER BY of a set operation sees its output columns only (PostgreSQL's transformSetOperationStmt).
    level.items.push({ refname: undefined, columns: outputs, colsVisible: true, lateralOnly: false });
    this.sortClause(f.sortClause, outputs);
    this.limits(f);
    this.outputs = outputs;
  }

  private limits(f: Fields): void {
    if (f.limitOffset !== undefined) this.node(f.limitOffset);
    if (f.limitCount !== undefined) this.node(f.limitCount);
    this.oneOf(
      f.limitOption,
      ['LIMIT_OPTION_DEFAULT', 'LIMIT_OPTION_COUNT', 'LIMIT_OPTION_WITH_TIES'],
      'Limit option',
    );
  }

  insertStmt(f: Fields): void {
    const top = this.takeTop();
    this.inLevel((level) =>
      this.withClause(f.withClause, top, () => {
        this.oneOf(f.override, ['OVERRIDING_NOT_SET'], 'OVERRIDING');
        const target = this.target(f.relation, 'insert');
        for (const col of f.cols === undefined ? [] : this.array(f.cols)) {
          const entry = single(col);
          if (entry?.[0] !== 'ResTarget')
            this.fail('construct_not_allowed', 'The column list holds an unexpected item.');
          this.visit('ResTarget', entry[1], {
            fields: INSERT_COLUMN_FIELDS,
            visit: (_w, c) => this.targetColumn(target, c.name),
          });
        }
        // The inserted rows do not see the target (PostgreSQL adds it to the namespace for RETURNING only).
        if (f.selectStmt !== undefined) this.select(f.selectStmt);
        level.items.push(target);
        this.outputs = this.returning(f.returningClause);
      }),
    );
  }

  updateStmt(f: Fields): void {
    const top = this.takeTop();
    this.inLevel((level) =>
      this.withClause(f.withClause, top, () => {
        const target = this.target(f.relation, 'update');
        level.items.push(target);
        this.fromClause(f.fromClause, level);
        for (const t of this.array(f.targetList)) {
          const entry = single(t);
          if (entry?.[0] !== 'ResTarget') this.fail('construct_not_allowed', 'SET holds an unexpected item.');
          this.visit('ResTarget', entry[1], {
            fields: SET_ITEM_FIELDS,
            visit: (w, item) => {
              this.targetColumn(target, item.name);
              w.node(item.val);
            },
          });
        }
        if (f.whereClause !== undefined) this.node(f.whereClause);
        this.outputs = this.returning(f.returningClause);
      }),
    );
  }

  deleteStmt(f: Fields): void {
    const top = this.takeTop();
    this.inLevel((level) =>
      this.withClause(f.withClause, top, () => {
        level.items.push(this.target(f.relation, 'delete'));
        this.fromClause(f.usingClause, level);
        if (f.whereClause !== undefined) this.node(f.whereClause);
        this.outputs = this.returning(f.returningClause);
      }),
    );
  }

  /** A SelectStmt that may come wrapped or unwrapped (set-operation arms); returns its output names. */
  select(value: unknown): string[] {
    const entry = single(value);
    if (entry && entry[0] === 'SelectStmt') this.visit('SelectStmt', entry[1]);
    else this.visit('SelectStmt', value);
    return this.outputs;
  }

  /** A statement node of any allowed kind (a WITH item); returns its output names. */
  statement(value: unknown): string[] {
    this.outputs = [];
    this.node(value);
    return this.outputs;
  }

  // --- WITH -------------------------------------------------------------------------------------

  /**
   * Walks `body` with the CTEs of a WITH clause in scope. Non-recursive WITH: each CTE sees only the
   * CTEs listed before it. WITH RECURSIVE: every item sees every item, and a self-reference (in the
   * recursive arm of a UNION) sees the columns of the non-recursive arm; its items must all be reads.
   * The statement's body sees them all. A CTE name never names a DML target.
   */
  private withClause(value: unknown, allowWrites: boolean, body: () => void): void {
    if (value === undefined) {
      body();
      return;
    }
    this.visit('WithClause', value, WITH_CLAUSE);
    const wc = value as Fields;
    const recursive = wc.recursive === true;
    const scope: CteScope = { ctes: new Map(), parent: this.ctes };
    const items: Fields[] = [];
    for (const entryValue of this.array(wc.ctes)) {
      const entry = single(entryValue);
      if (entry?.[0] !== 'CommonTableExpr')
        this.fail('construct_not_allowed', 'The WITH clause holds an unexpected item.');
      this.visit('CommonTableExpr', entry[1], COMMON_TABLE_EXPR);
      items.push(entry[1] as Fields);
    }
    this.ctes = scope;
    try {
      if (recursive) {
        for (const cte of items) {
          const aliases = cte.aliascolnames === undefined ? undefined : this.names(cte.aliascolnames);
          scope.ctes.set(cte.ctename as string, { columns: aliases });
        }
      }
      for (const cte of items) {
        const saved = this.at;
        if (typeof cte.location === 'number') this.at = cte.location;
        const query = single(cte.ctequery);
        if (!query || !['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(query[0])) {
          this.fail('construct_not_allowed', 'A WITH item must be SELECT, INSERT, UPDATE or DELETE.');
        }
        if (query[0] !== 'SelectStmt' && recursive) {
          this.fail(
            'construct_not_allowed',
            `The data-modifying WITH item ${String(cte.ctename)} is not allowed in WITH RECURSIVE.`,
            'WITH RECURSIVE may only read; write in a statement of its own',
          );
        }
        if (query[0] !== 'SelectStmt' && !allowWrites) {
          this.fail(
            'construct_not_allowed',
            `The data-modifying WITH item ${String(cte.ctename)} is allowed only in the WITH clause of the statement itself.`,
          );
        }
        this.at = saved;
        const name = cte.ctename as string;
        const aliases = cte.aliascolnames === undefined ? undefined : this.names(cte.aliascolnames);
        const entry = scope.ctes.get(name);
        if (recursive && entry && entry.columns === undefined) {
          // Known from the non-recursive arm on, for the self-reference in the recursive arm.
          this.leftArmHook = (names) => {
            entry.columns = names;
          };
        }
        const outputs = this.statement(cte.ctequery);
        this.leftArmHook = undefined;
        const columns = renamed(outputs, aliases);
        if (!columns) {
          this.at = typeof cte.location === 'number' ? cte.location : this.at;
          this.fail(
            'column_not_allowed',
            `WITH item ${name} names ${aliases!.length} columns but its query has ${outputs.length}.`,
            `columns of its query: ${formatColumns(outputs)}`,
          );
        }
        scope.ctes.set(name, { columns });
      }
      body();
    } finally {
      this.ctes = scope.parent;
    }
  }

  private cte(name: string): Cte | undefined {
    for (let s = this.ctes; s; s = s.parent) {
      const cte = s.ctes.get(name);
      if (cte) return cte;
    }
    return undefined;
  }

  // --- FROM -------------------------------------------------------------------------------------

  /** FROM (or UPDATE ... FROM, DELETE ... USING): each item sees the earlier ones only if LATERAL. */
  private fromClause(value: unknown, level: Level): void {
    if (value === undefined) return;
    for (const entryValue of this.array(value)) {
      const { namespace } = this.fromItem(entryValue, level);
      for (const i of namespace) i.lateralOnly = true;
      level.items.push(...namespace);
    }
    for (const i of level.items) i.lateralOnly = false;
  }

  private fromItem(value: unknown, level: Level): FromItem {
    const entry = single(value);
    if (!entry) this.fail('construct_not_allowed', 'The parse tree holds an unexpected value.');
    const [type, f] = entry;
    let result: FromItem | undefined;
    const rule: Rule | undefined =
      type === 'RangeVar'
        ? {
            fields: RANGE_VAR_FIELDS,
            visit: (_w, fields) => {
              result = this.rangeVar(fields);
            },
          }
        : type === 'RangeSubselect'
          ? {
              fields: RANGE_SUBSELECT_FIELDS,
              visit: (_w, fields) => {
                result = this.rangeSubselect(fields, level);
              },
            }
          : type === 'JoinExpr'
            ? {
                fields: JOIN_EXPR_FIELDS,
                visit: (_w, fields) => {
                  result = this.joinExpr(fields, level);
                },
              }
            : undefined;
    // Anything else (functions in FROM, TABLESAMPLE, XMLTABLE ...) is rejected by visit.
    this.visit(type, f, rule);
    if (!result) this.fail('construct_not_allowed', `${type} is not allowed in FROM.`);
    return result;
  }

  private rangeVar(f: Fields): FromItem {
    this.oneOf(f.relpersistence, ['p'], 'Relation persistence');
    const alias = this.alias(f.alias);
    const name = f.relname as string;
    let columns: readonly string[];
    const cte = f.schemaname === undefined && f.catalogname === undefined ? this.cte(name) : undefined;
    if (cte) {
      if (!cte.columns) {
        this.fail(
          'construct_not_allowed',
          `WITH RECURSIVE item ${name} is referenced before its columns are known.`,
          `give it a column list, e.g. ${name}(a, b) AS (...), or reference it only in the recursive arm of its UNION`,
        );
      }
      columns = cte.columns;
    } else {
      columns = this.baseRelation(f, 'select');
    }
    const refname = alias?.name ?? name;
    const own = renamed(columns, alias?.columns);
    if (!own) this.tooManyAliases(refname, columns);
    const it = item(refname, own);
    return { namespace: [it], columns: own };
  }

  private rangeSubselect(f: Fields, level: Level): FromItem {
    const lateral = f.lateral === true;
    const saved = level.lateralActive;
    level.lateralActive = lateral;
    let outputs: string[];
    try {
      outputs = this.select(f.subquery);
    } finally {
      level.lateralActive = saved;
    }
    const alias = this.alias(f.alias);
    const columns = renamed(outputs, alias?.columns);
    if (!columns) this.tooManyAliases(alias?.name ?? 'subquery', outputs);
    return { namespace: [item(alias?.name, columns)], columns };
  }

  private joinExpr(f: Fields, level: Level): FromItem {
    this.oneOf(f.jointype, ['JOIN_INNER', 'JOIN_LEFT', 'JOIN_FULL', 'JOIN_RIGHT'], 'Join type');
    const left = this.fromItem(f.larg, level);
    // The left side is visible to a LATERAL item on the right side (PostgreSQL: lateral-only).
    const mark = level.items.length;
    for (const i of left.namespace) i.lateralOnly = true;
    level.items.push(...left.namespace);
    let right: FromItem;
    try {
      right = this.fromItem(f.rarg, level);
    } finally {
      level.items.length = mark;
    }
    const mine = [...left.namespace, ...right.namespace];
    for (const i of mine) i.lateralOnly = false;

    let using: string[] | undefined;
    if (f.usingClause !== undefined) {
      using = this.names(f.usingClause);
      for (const name of using) {
        if (!left.columns.includes(name) || !right.columns.includes(name)) {
          this.fail(
            'column_not_allowed',
            `USING (${name}) names no column of both sides of the join.`,
            `columns of the left side: ${formatColumns(left.columns)}; of the right side: ${formatColumns(right.columns)}`,
          );
        }
      }
    } else if (f.isNatural === true) {
      using = naturalColumns(left.columns, right.columns);
    }
    if (f.quals !== undefined) {
      // ON sees the two sides of this join and the outer levels, nothing else of this level.
      const saved = level.items;
      level.items = mine;
      try {
        this.node(f.quals);
      } finally {
        level.items = saved;
      }
    }
    const joined = joinColumns(left.columns, right.columns, using);
    const usingAlias = this.alias(f.join_using_alias);
    const alias = this.alias(f.alias);
    const columns = renamed(joined, alias?.columns);
    if (!columns) this.tooManyAliases(alias?.name ?? 'join', joined);
    // An aliased join hides the items inside it; otherwise they stay visible as qualifiers only.
    const namespace: NsItem[] = alias ? [] : mine.map((i) => ({ ...i, colsVisible: false }));
    namespace.push(item(alias?.name, columns));
    if (usingAlias) {
      namespace.push({
        refname: usingAlias.name,
        columns: using ?? [],
        colsVisible: false,
        lateralOnly: false,
      });
    }
    return { namespace, columns };
  }

  private alias(value: unknown): { name: string; columns: string[] | undefined } | undefined {
    if (value === undefined) return undefined;
    this.visit('Alias', value, ALIAS);
    const f = value as Fields;
    return {
      name: f.aliasname as string,
      columns: f.colnames === undefined ? undefined : this.names(f.colnames),
    };
  }

  private tooManyAliases(name: string, columns: readonly string[]): never {
    return this.fail(
      'column_not_allowed',
      `The alias list of ${name} names more columns than it has.`,
      `columns of ${name}: ${formatColumns(columns)}`,
    );
  }

  /** A base relation, checked against the dialect and recorded with its access; returns its columns. */
  private baseRelation(f: Fields, op: Operation): readonly string[] {
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
    const relation = this.dialect.relations.get(name);
    if (!relation) {
      this.fail(
        'relation_not_allowed',
        `Relation ${name} is not available.`,
        `available relations: ${this.dialect.relationList}`,
      );
    }
    if (!relation.operations.has(op)) {
      const allowed = [...relation.operations].map((o) => o.toUpperCase()).join(', ');
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
    return relation.columns;
  }

  /** A DML target: always a base relation (PostgreSQL never resolves it to a CTE). */
  private target(value: unknown, op: Operation): NsItem {
    let found: NsItem | undefined;
    this.visit('RangeVar', value, {
      fields: RANGE_VAR_FIELDS,
      visit: (_w, f) => {
        this.oneOf(f.relpersistence, ['p'], 'Relation persistence');
        const alias = this.alias(f.alias);
        const columns = this.baseRelation(f, op);
        if (alias?.columns)
          this.fail('construct_not_allowed', 'A column alias list on the target is not allowed.');
        found = item(alias?.name ?? (f.relname as string), columns);
      },
    });
    return found!;
  }

  /** A target column of INSERT (...) or UPDATE ... SET, which must be a column of the target. */
  private targetColumn(target: NsItem, name: unknown): void {
    if (typeof name === 'string' && target.columns.includes(name)) return;
    this.fail(
      'column_not_allowed',
      `Column ${String(name)} is not a column of the target relation.`,
      `columns of ${target.refname}: ${formatColumns(target.columns)}`,
    );
  }

  // --- select lists and clauses -----------------------------------------------------------------

  /** A select list; returns its output names (star expansions included). */
  private targetList(value: unknown): string[] {
    const outputs: string[] = [];
    if (value === undefined) return outputs;
    for (const t of this.array(value)) {
      const entry = single(t);
      if (entry?.[0] !== 'ResTarget')
        this.fail('construct_not_allowed', 'The select list holds an unexpected item.');
      const f = entry[1];
      this.visit('ResTarget', f, RES_TARGET_SHELL);
      const r = f as Fields;
      const star = this.starExpansion(r.val);
      if (star) {
        outputs.push(...star);
        continue;
      }
      if (r.val !== undefined) this.node(r.val);
      outputs.push(typeof r.name === 'string' ? r.name : figureColname(r.val, this.subqueryName));
    }
    return outputs;
  }

  /** `*` or `t.*` as a select-list item: the columns it expands to, or undefined when it is something else. */
  private starExpansion(val: unknown): string[] | undefined {
    const entry = single(val);
    if (entry?.[0] !== 'ColumnRef' || !isFields(entry[1]) || !Array.isArray(entry[1].fields))
      return undefined;
    const parts = entry[1].fields;
    const last = single(parts[parts.length - 1]);
    if (last?.[0] !== 'A_Star') return undefined;
    this.starTarget = entry[1];
    this.node(val);
    this.starTarget = undefined;
    if (parts.length === 1) return starColumns(this.level);
    const qualifier = stringValue(parts[0]);
    return qualifier === undefined ? [] : [...(findRefname(this.level, qualifier)?.columns ?? [])];
  }

  private returning(value: unknown): string[] {
    if (value === undefined) return [];
    this.visit('ReturningClause', value, RETURNING_CLAUSE);
    return this.targetList((value as Fields).exprs);
  }

  private valuesLists(value: unknown): string[] {
    let width = 0;
    for (const row of this.array(value)) {
      const entry = single(row);
      if (entry?.[0] !== 'List' || !isFields(entry[1]))
        this.fail('construct_not_allowed', 'VALUES holds an unexpected row.');
      const items = entry[1].items === undefined ? [] : this.array(entry[1].items);
      width = Math.max(width, items.length);
      this.node(row);
    }
    return Array.from({ length: width }, (_, i) => `column${i + 1}`);
  }

  /** ORDER BY items of a query (`outputs` given: bare names may name output columns) or of an aggregate. */
  sortClause(value: unknown, outputs?: readonly string[]): void {
    if (value === undefined) return;
    for (const entryValue of this.array(value)) {
      const entry = single(entryValue);
      if (entry?.[0] !== 'SortBy') this.fail('construct_not_allowed', 'ORDER BY holds an unexpected item.');
      this.visit('SortBy', entry[1], {
        fields: SORT_BY_FIELDS,
        visit: (w, f) => {
          w.oneOf(f.sortby_dir, ['SORTBY_DEFAULT', 'SORTBY_ASC', 'SORTBY_DESC'], 'Sort direction');
          w.oneOf(
            f.sortby_nulls,
            ['SORTBY_NULLS_DEFAULT', 'SORTBY_NULLS_FIRST', 'SORTBY_NULLS_LAST'],
            'NULLS option',
          );
          if (outputs) this.orderingExpression(f.node, outputs);
          else this.node(f.node);
        },
      });
    }
  }

  /** ORDER BY and DISTINCT ON: a bare name names an output column first (findTargetlistEntrySQL92). */
  private orderingExpression(value: unknown, outputs: readonly string[]): void {
    const name = bareName(value);
    if (name !== undefined && outputs.includes(name)) {
      this.visit('ColumnRef', single(value)![1], COLUMN_REF_SHELL);
      return;
    }
    this.node(value);
  }

  /** GROUP BY: a bare name is a column of this level's FROM items first, else an output column. */
  private groupItem(value: unknown, outputs: readonly string[]): void {
    const name = bareName(value);
    if (name !== undefined && !resolvesLocally(this.level, name) && outputs.includes(name)) {
      this.visit('ColumnRef', single(value)![1], COLUMN_REF_SHELL);
      return;
    }
    const entry = single(value);
    if (entry?.[0] === 'GroupingSet') {
      this.visit('GroupingSet', entry[1], {
        fields: GROUPING_SET_FIELDS,
        visit: (w, f) => {
          w.oneOf(f.kind, GROUPING_SET_KINDS, 'Grouping set');
          for (const c of f.content === undefined ? [] : w.array(f.content)) this.groupItem(c, outputs);
        },
      });
      return;
    }
    this.node(value);
  }

  /** A column reference anywhere an expression may be: it must resolve, or the statement is refused. */
  columnRef(f: Fields): void {
    const parts = this.array(f.fields);
    const names: string[] = [];
    let star = false;
    parts.forEach((part, i) => {
      const entry = single(part);
      if (entry && entry[0] === 'A_Star' && i === parts.length - 1) {
        star = true;
        return;
      }
      const sval = stringValue(part);
      if (sval === undefined)
        this.fail('construct_not_allowed', 'The column reference holds an unexpected part.');
      names.push(sval);
    });
    if (parts.length > 2) {
      this.fail(
        'construct_not_allowed',
        `Column references of more than two parts are not allowed (${names.join('.')}${star ? '.*' : ''}).`,
        'write alias.column',
      );
    }
    const text = `${names.join('.')}${star ? `${names.length ? '.' : ''}*` : ''}`;
    if (star) {
      if (f !== this.starTarget) {
        this.fail(
          'column_not_allowed',
          `${text} is a whole-row value here; only the select list and RETURNING may expand * into columns.`,
          `name the columns: ${formatColumns(columnsInScope(this.level))}`,
        );
      }
      if (names.length === 1 && !findRefname(this.level, names[0]!)) {
        this.fail(
          'column_not_allowed',
          `${text} names no relation in scope.`,
          `columns in scope: ${formatColumns(columnsInScope(this.level))}`,
        );
      }
      return;
    }
    if (names.length === 1) {
      const name = names[0]!;
      if (resolvesBare(this.level, name)) return;
      const whole = findRefname(this.level, name);
      this.fail(
        'column_not_allowed',
        whole
          ? `${name} names a whole row of ${name}, not a column; whole-row references are not allowed.`
          : `Column ${name} does not exist in the relations in scope.`,
        `columns in scope: ${formatColumns(columnsInScope(this.level))}`,
      );
    }
    const [qualifier, column] = names as [string, string];
    const owner = findRefname(this.level, qualifier);
    if (!owner) {
      this.fail(
        'column_not_allowed',
        `${text}: no relation named ${qualifier} is in scope.`,
        `columns in scope: ${formatColumns(columnsInScope(this.level))}`,
      );
    }
    if (!owner.columns.includes(column)) {
      this.fail(
        'column_not_allowed',
        `${text} does not resolve: ${qualifier} has no column ${column} (PostgreSQL would read it as the function call ${column}(${qualifier})).`,
        `columns of ${qualifier}: ${formatColumns(owner.columns)}`,
      );
    }
  }

  /** Records the output name of an EXPR sublink's subquery (the sublink's own column name). */
  sublink(f: Fields): void {
    const names = this.select(f.subselect);
    if (f.subLinkType === 'EXPR_SUBLINK' && names[0] !== undefined) this.sublinkNames.set(f, names[0]);
  }

  // --- functions, types, operators --------------------------------------------------------------

  isAllowedFunction(name: string): boolean {
    return this.dialect.functions.has(name);
  }

  function(name: string): void {
    if (!this.dialect.functions.has(name)) {
      this.fail(
        'function_not_allowed',
        `Function ${name.toUpperCase()} is not allowed.`,
        functionHint(name, this.dialect),
      );
    }
  }

  functionHint(name: string): string {
    return functionHint(name, this.dialect);
  }

  typeName(value: unknown): void {
    this.visit('TypeName', value, TYPE_NAME);
  }

  /** Called with the TypeName's own location current. */
  checkType(f: Fields): void {
    const names = this.names(f.names);
    const qualifier = names.length === 2 ? names[0] : undefined;
    const last = names[names.length - 1] ?? '';
    const allowed = `allowed types: ${this.dialect.typeList}`;
    if (names.length > 2 || (qualifier !== undefined && qualifier !== 'pg_catalog')) {
      this.fail('type_not_allowed', `Type ${names.join('.')} is not allowed.`, allowed);
    }
    const canonical = canonicalType(last);
    if (!this.dialect.castTypes.has(canonical)) {
      this.fail(
        'type_not_allowed',
        `Type ${canonical} is not allowed.`,
        last.startsWith('reg') ? `catalog lookups (reg* types) are not available; ${allowed}` : allowed,
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
}

/** The name of a one-part, non-star ColumnRef, else undefined. */
function bareName(value: unknown): string | undefined {
  const entry = single(value);
  if (entry?.[0] !== 'ColumnRef' || !isFields(entry[1]) || !Array.isArray(entry[1].fields)) return undefined;
  const parts = entry[1].fields;
  return parts.length === 1 ? stringValue(parts[0]) : undefined;
}

/** libpg-query omits zero values: the modifier 0 of `numeric(5,0)` comes as `{ ival: {} }`. */
function isIntegerConst(f: Fields): boolean {
  return 'ival' in f && Object.keys(f).every((k) => k === 'ival' || k === LOCATION);
}

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
const SORT_BY_FIELDS = set('node', 'sortby_dir', 'sortby_nulls');
const GROUPING_SET_FIELDS = set('kind', 'content');
const TYPE_NAME: Rule = {
  fields: set('names', 'typmods', 'typemod'),
  visit(w, f) {
    w.checkType(f);
  },
};
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
const SET_ITEM_FIELDS = set('name', 'val');
