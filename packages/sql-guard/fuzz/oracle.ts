// An independent judge of what `check` returns: it re-parses accepted SQL with libpg-query and walks the tree
// with its own, much simpler rules written from guard.md (not from the guard's code). It states what must
// never be accepted; it does not try to say what must be.
import { parseSync, scanSync } from 'libpg-query';
import { type CheckResult, type Dialect, GUARD_ERROR_CODES, type Mode } from '../src/index.js';
import { estimateExpandedSize } from './expansion-oracle.js';

const ERROR_CODES: ReadonlySet<string> = new Set(GUARD_ERROR_CODES);

/** Node types that are never part of the dialect, whatever the guard's allowlist says. */
const NEVER = new Set([
  'SQLValueFunction',
  'MinMaxExpr',
  'XmlExpr',
  'XmlSerialize',
  'RangeFunction',
  'RangeTableFunc',
  'RangeTableSample',
  'LockingClause',
  'IntoClause',
  'OnConflictClause',
  'ParamRef',
  'GroupingFunc',
  'CurrentOfExpr',
  'JsonObjectConstructor',
  'JsonArrayConstructor',
  'JsonArrayQueryConstructor',
  'JsonObjectAgg',
  'JsonArrayAgg',
  'JsonParseExpr',
  'JsonScalarExpr',
  'JsonSerializeExpr',
  'JsonFuncExpr',
  'JsonTable',
  'MergeStmt',
  'CallStmt',
  'DoStmt',
  'CreateStmt',
  'VariableSetStmt',
  'TransactionStmt',
  'CopyStmt',
  'ExplainStmt',
  'LockStmt',
  'DeclareCursorStmt',
]);

/** Parser spellings of the scalar types (a cast to INTEGER arrives as pg_catalog.int4). */
const TYPE_NAMES: Record<string, string> = {
  int: 'integer',
  int4: 'integer',
  integer: 'integer',
  int8: 'bigint',
  bigint: 'bigint',
  int2: 'smallint',
  smallint: 'smallint',
  float8: 'double precision',
  'double precision': 'double precision',
  float4: 'real',
  real: 'real',
  bool: 'boolean',
  boolean: 'boolean',
  bpchar: 'char',
  char: 'char',
  varchar: 'varchar',
  text: 'text',
  numeric: 'numeric',
  decimal: 'numeric',
  date: 'date',
  time: 'time',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  interval: 'interval',
  uuid: 'uuid',
};

type Node = Record<string, unknown>;

export class Oracle {
  private readonly relations: Map<string, Set<string>>;
  private readonly columnsOf: Map<string, Set<string>>;
  private readonly functions: Set<string>;
  private readonly casts: Set<string>;
  /** Node types seen in accepted statements (for the report). */
  readonly acceptedNodeTypes = new Map<string, number>();

  constructor(
    dialect: Dialect,
    /** The guard's `limits.maxExpandedNodes`. */
    private readonly maxExpandedNodes: number,
  ) {
    this.relations = new Map(Object.entries(dialect.relations).map(([n, r]) => [n, new Set(r.operations)]));
    this.columnsOf = new Map(Object.entries(dialect.relations).map(([n, r]) => [n, new Set(r.columns)]));
    this.functions = new Set(dialect.functions);
    this.casts = new Set(dialect.castTypes.map((t) => TYPE_NAMES[t] ?? t));
  }

  /** Problems with a result: malformed, or accepting something outside the dialect. */
  judge(sql: string, mode: Mode, result: CheckResult): string[] {
    const problems: string[] = [];
    if (typeof result !== 'object' || result === null || typeof result.ok !== 'boolean')
      return ['not a CheckResult'];
    if (!result.ok) {
      const e = result.error;
      if (!e || !ERROR_CODES.has(e.code)) problems.push(`unknown error code ${e?.code}`);
      if (typeof e?.message !== 'string' || e.message.length === 0) problems.push('error without a message');
      if (e?.position) {
        const p = e.position;
        if (!(p.offset >= 0 && p.offset <= sql.length && p.line >= 1 && p.column >= 1))
          problems.push(`position out of range ${JSON.stringify(p)}`);
      }
      if (e?.statementIndex !== undefined && !(Number.isInteger(e.statementIndex) && e.statementIndex >= 0))
        problems.push('bad statementIndex');
      return problems;
    }
    // Accepted: re-parse and judge independently.
    let stmts: { stmt: Node }[];
    try {
      stmts = (parseSync(sql) as { stmts: { stmt: Node }[] }).stmts;
    } catch {
      return ['accepted SQL that PostgreSQL cannot parse'];
    }
    if (stmts.length !== result.statements.length)
      problems.push(`accepted ${result.statements.length} statements, the parser sees ${stmts.length}`);
    if (mode !== 'script' && stmts.length !== 1)
      problems.push(`mode ${mode} accepted ${stmts.length} statements`);
    if (stmts.length === 0 || stmts.length > 100) problems.push(`accepted ${stmts.length} statements`);
    for (const [i, s] of stmts.entries()) {
      const kind = Object.keys(s.stmt)[0]!;
      const checked = result.statements[i];
      const expected = {
        SelectStmt: 'select',
        InsertStmt: 'insert',
        UpdateStmt: 'update',
        DeleteStmt: 'delete',
      }[kind];
      if (!expected) {
        problems.push(`accepted a ${kind}`);
        continue;
      }
      if (mode === 'query' && kind !== 'SelectStmt') problems.push(`query mode accepted a ${kind}`);
      if (mode === 'execute' && kind === 'SelectStmt') problems.push('execute mode accepted a SELECT');
      const writes = new Set<string>();
      this.walk(s.stmt, [], problems, writes);
      problems.push(...this.names(s.stmt));
      const expanded = estimateExpandedSize(s.stmt);
      if (expanded > 4 * this.maxExpandedNodes)
        problems.push(`accepted a statement that expands to at least ${expanded} nodes`);
      if (mode === 'query' && writes.size > 0)
        problems.push('query mode accepted a data-modifying statement');
      if (!checked) continue;
      if (checked.kind !== expected) problems.push(`kind ${checked.kind} for a ${kind}`);
      const loc = checked.location;
      if (!loc || sql.slice(loc.offset, loc.offset + loc.length) !== checked.sql)
        problems.push('statement location does not match its sql');
      if (
        typeof checked.readOnly !== 'boolean' ||
        checked.readOnly !== (kind === 'SelectStmt' && writes.size === 0)
      )
        problems.push(`readOnly ${checked.readOnly} is wrong`);
      for (const r of checked.relations ?? []) {
        const ops = this.relations.get(r.name);
        if (!ops) problems.push(`reports relation ${r.name}`);
        else if (r.access !== 'read' && !ops.has(r.access)) problems.push(`reports ${r.access} on ${r.name}`);
      }
    }
    problems.push(...this.lexical(sql));
    return problems;
  }

  private walk(value: unknown, ctes: string[], problems: string[], writes: Set<string>): void {
    if (Array.isArray(value)) {
      for (const v of value) this.walk(v, ctes, problems, writes);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Node;
    for (const [key, inner] of Object.entries(node)) {
      if (!/^[A-Z]/.test(key) || typeof inner !== 'object' || inner === null) {
        this.walk(inner, ctes, problems, writes);
        continue;
      }
      this.acceptedNodeTypes.set(key, (this.acceptedNodeTypes.get(key) ?? 0) + 1);
      const n = inner as Node;
      if (NEVER.has(key)) problems.push(`accepted a ${key}`);
      let scope = ctes;
      const withCtes = (n.withClause as { ctes?: { CommonTableExpr: { ctename: string } }[] } | undefined)
        ?.ctes;
      if (withCtes) scope = [...ctes, ...withCtes.map((c) => c.CommonTableExpr.ctename)];
      switch (key) {
        case 'InsertStmt':
        case 'UpdateStmt':
        case 'DeleteStmt': {
          const op = key === 'InsertStmt' ? 'insert' : key === 'UpdateStmt' ? 'update' : 'delete';
          writes.add(op);
          const rel = (n.relation as Node | undefined) ?? {};
          const name = String(rel.relname ?? '');
          if (!this.relations.get(name)?.has(op)) problems.push(`accepted ${op} on ${name}`);
          break;
        }
        case 'RangeVar': {
          if (n.schemaname || n.catalogname)
            problems.push(`accepted a qualified relation ${n.schemaname}.${n.relname}`);
          const name = String(n.relname);
          if (!this.relations.has(name) && !scope.includes(name)) problems.push(`accepted relation ${name}`);
          break;
        }
        case 'FuncCall': {
          const parts = (n.funcname as { String: { sval: string } }[]).map((p) => p.String.sval);
          if (parts.length !== 1 || !this.functions.has(parts[0]!))
            problems.push(`accepted function ${parts.join('.')}`);
          break;
        }
        case 'A_Expr':
          if (n.kind === 'AEXPR_NULLIF') problems.push('accepted NULLIF');
          break;
        case 'TypeName': {
          const parts = (n.names as { String: { sval: string } }[]).map((p) => p.String.sval);
          const bare =
            parts.length === 2 && parts[0] === 'pg_catalog' ? parts[1]! : parts.length === 1 ? parts[0]! : '';
          const type = TYPE_NAMES[bare] ?? bare;
          if (!this.casts.has(type)) problems.push(`accepted type ${parts.join('.')}`);
          if (n.arrayBounds || n.setof || n.pct_type)
            problems.push(`accepted an array, SETOF or %TYPE of ${parts.join('.')}`);
          break;
        }
      }
      this.walk(n, scope, problems, writes);
    }
  }

  /**
   * Every column reference names something that exists (guard.md, "Every name resolves"), judged loosely
   * and without the guard's scoping: a qualifier must be a name the statement gives a FROM item (relation,
   * alias, CTE); the column must be a column of a dialect relation the statement reads, or a name the
   * statement itself gives a column (an alias, a column list, a select-list name, columnN of VALUES), or a
   * name PostgreSQL gives an expression column (function, type or keyword names used in the statement). A
   * bare name must not be only a qualifier (a whole row), and `*` may only be a whole select-list item. So
   * `t.json_agg` passes only where the statement really has a json_agg column.
   */
  private names(stmt: Node): string[] {
    const problems: string[] = [];
    const refnames = new Set<string>();
    const known = new Set<string>(['?column?', 'case', 'coalesce', 'exists', 'row', 'nullif', 'array']);
    for (let i = 1; i <= 20; i++) known.add(`column${i}`);
    const refs: { fields: unknown[]; star: boolean; selectItem: boolean }[] = [];
    const selectItems = new Set<unknown>();
    const strings = (xs: unknown) =>
      Array.isArray(xs)
        ? xs.map((x) => (x as { String?: { sval?: string } }).String?.sval).filter((x) => x !== undefined)
        : [];
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const v of value) visit(v);
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      for (const [key, inner] of Object.entries(value as Node)) {
        if (typeof inner !== 'object' || inner === null) continue;
        const n = inner as Node;
        switch (key) {
          case 'RangeVar':
          case 'relation': {
            const name = String(n.relname);
            refnames.add(name);
            for (const c of this.columnsOf.get(name) ?? []) known.add(c);
            break;
          }
          case 'Alias':
          case 'alias':
          case 'join_using_alias':
            if (typeof n.aliasname === 'string') refnames.add(n.aliasname);
            for (const c of strings(n.colnames)) known.add(c as string);
            break;
          case 'CommonTableExpr':
            refnames.add(String(n.ctename));
            for (const c of strings(n.aliascolnames)) known.add(c as string);
            break;
          case 'ResTarget':
            if (typeof n.name === 'string') known.add(n.name);
            if (n.val && typeof n.val === 'object' && 'ColumnRef' in (n.val as Node))
              selectItems.add((n.val as Node).ColumnRef);
            break;
          case 'FuncCall':
          case 'TypeName': {
            const parts = strings(key === 'FuncCall' ? n.funcname : n.names);
            if (parts.length) known.add(parts[parts.length - 1] as string);
            break;
          }
          case 'ColumnRef': {
            const fields = Array.isArray(n.fields) ? n.fields : [];
            const star = fields.some((f) => typeof f === 'object' && f !== null && 'A_Star' in f);
            refs.push({ fields: strings(fields), star, selectItem: selectItems.has(n) });
            break;
          }
        }
        visit(n);
      }
    };
    visit(stmt);
    for (const { fields, star, selectItem } of refs) {
      const text = `${fields.join('.')}${star ? '.*' : ''}`;
      if (star) {
        if (!selectItem) problems.push(`accepted ${text} outside a select list`);
        if (fields.length === 1 && !refnames.has(fields[0] as string)) problems.push(`accepted ${text}`);
        continue;
      }
      const column = fields[fields.length - 1] as string;
      if (fields.length === 2 && !refnames.has(fields[0] as string))
        problems.push(`accepted ${text}: no such qualifier`);
      if (!known.has(column)) problems.push(`accepted ${text}: no such column`);
    }
    return problems;
  }

  /** Comments, quoted identifiers, dollar quotes and non-standard literals, from the parser's own scanner. */
  private lexical(sql: string): string[] {
    const problems: string[] = [];
    let tokens: { text: string; tokenName: string }[];
    try {
      tokens = scanSync(sql).tokens as { text: string; tokenName: string }[];
    } catch {
      return ['accepted SQL that PostgreSQL cannot scan'];
    }
    for (const t of tokens) {
      if (t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT') problems.push('accepted a comment');
      else if (/^(u&)?"/i.test(t.text)) problems.push('accepted a quoted identifier');
      else if (t.text.startsWith('$') && t.text.length > 1 && !/^\$\d+$/.test(t.text))
        problems.push('accepted a dollar quote');
      else if (/^(e|b|x|u&)'/i.test(t.text)) problems.push(`accepted a literal ${t.text.slice(0, 3)}`);
    }
    return problems;
  }
}
