import type { GuardErrorCode, RelationAccess } from '../types.js';
import type { CteScope } from './ctes.js';
import type { Denial } from './denials.js';
import { DENIED_FIELDS, DENIED_NODES } from './denials.js';
import type { CompiledDialect } from './dialect.js';
import { folded, type Sizes, type Weight } from './expansion.js';
import { canonicalType, functionHint, functionLikeName, operatorHint } from './names.js';
import { RULES, type Rule } from './rules.js';
import type { Level } from './scope.js';
import { type Fields, isFields, nodeType, single, stringValue } from './tree.js';
import { violation } from './violation.js';

/**
 * The default-deny walk over one statement's parse tree. Every node type that may appear is a key of
 * RULES (rules.ts), with the exact set of fields it may carry; anything else rejects the statement. The
 * walk is recursive but bounded: MAX_DEPTH nested nodes at most. While it walks, it keeps PostgreSQL's
 * scopes (scope.ts) and refuses every column reference that does not resolve.
 */
export const MAX_DEPTH = 256;

const LOCATION = 'location';

export class Walker {
  // The walk's state: statements.ts, from.ts and columns.ts read and update it.
  depth = 0;
  at: number;
  ctes: CteScope | undefined;
  level: Level | undefined;
  top = true;
  /** Every base relation touched, deduplicated, in order of first use (a statement touches a few). */
  private readonly accesses: RelationAccess[] = [];
  /** Output names of the statement node visited last (set by select/insert/update/delete). */
  outputs: readonly string[] = [];
  /** The expanded size of each of `outputs` (expansion.ts); undefined for a write's RETURNING. */
  outputSizes: Sizes = undefined;
  /** Nodes entered so far, with the copies PostgreSQL makes when it inlines (expansion.ts). */
  size = 0;
  /** Bytes of the constants walked so far, copies included (expansion.ts). */
  value = 0;
  /** Bytes PostgreSQL may build copying and folding what was walked so far (expansion.ts). */
  bytes = 0;
  /** The heaviest constant walked so far and its location, named when `bytes` passes its bound. */
  largest = { weight: 0, at: 0, text: '' };
  /** The column whose copies built the most bytes each, named when `bytes` passes its bound. */
  heaviestCopy = { bytes: 0, column: '', item: '' };
  /** The select-list ColumnRef currently allowed to end in `*` (a star expansion, not a whole-row value). */
  starTarget: unknown;
  /** EXPR sublinks walked so far, to the name of their subquery's first column (for figureColname). */
  readonly sublinkNames = new SublinkNames();
  /**
   * When check asks (its lexical pre-filter, lexical.ts literalsExplainTriggers): the byte offsets where the string
   * constants walked begin, as literals.ts stringConstStarts finds them in the whole tree.
   */
  stringConsts: number[] | undefined;
  /** Called between the arms of the next set operation: a WITH RECURSIVE item learns its columns there. */
  leftArmHook: ((names: readonly string[]) => void) | undefined;

  constructor(
    readonly dialect: CompiledDialect,
    statementByte: number,
    /** `limits.maxExpandedNodes`. */
    readonly maxSize: number,
    /** `limits.maxExpandedBytes`. */
    readonly maxBytes: number,
  ) {
    this.at = statementByte;
  }

  get relations(): RelationAccess[] {
    return this.accesses;
  }

  access(name: string, access: RelationAccess['access']): void {
    for (const a of this.accesses) if (a.name === name && a.access === access) return;
    this.accesses.push({ name, access });
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
    const type = nodeType(value);
    if (type === undefined) this.fail('construct_not_allowed', 'The parse tree holds an unexpected value.');
    this.visit(type, (value as Fields)[type]);
  }

  nodes(value: unknown): void {
    if (value === undefined) return;
    for (const item of this.array(value)) this.node(item);
  }

  /** An unwrapped node whose type the parent field fixes (e.g. InsertStmt.relation is a RangeVar). */
  visit(type: string, value: unknown, rule: Rule | undefined = RULES[type]): void {
    if (!rule) {
      this.enter(type, value, undefined);
      return;
    }
    const saved = this.enter(type, value, rule.fields);
    if (rule.folds) {
      const value0 = this.value;
      rule.visit(this, value as Fields);
      folded(this, value0);
    } else rule.visit(this, value as Fields);
    this.leave(saved);
  }

  /** The weight walked so far, to measure a part of the tree with `since`. */
  mark(): Weight {
    return { nodes: this.size, value: this.value, bytes: this.bytes };
  }

  since(mark: Weight): Weight {
    return { nodes: this.size - mark.nodes, value: this.value - mark.value, bytes: this.bytes - mark.bytes };
  }

  /**
   * Checks a node's fields against `fields` (undefined: the node type is not allowed) and makes it the
   * current node (its location, one level deeper). Returns what `leave` restores. For nodes whose
   * children the caller walks itself (FROM items, ORDER BY items ...).
   */
  enter(type: string, value: unknown, fields: ReadonlySet<string> | undefined): number {
    if (!isFields(value)) this.fail('construct_not_allowed', `The parse tree holds a malformed ${type}.`);
    const saved = this.at;
    this.size++;
    if (++this.depth > MAX_DEPTH) {
      this.locate(value[LOCATION]);
      this.fail(
        'construct_not_allowed',
        `The statement is nested more than ${MAX_DEPTH} levels deep.`,
        'simplify it or split it into several statements',
      );
    }
    if (!fields) {
      this.locate(value[LOCATION]);
      this.reject(type, value);
    }
    // The location is read in the loop: a keyed load there uses the loop's own key cache.
    for (const key in value) {
      if (key === LOCATION) {
        this.locate(value[key]);
        continue;
      }
      if (fields.has(key)) continue;
      this.locate(value[LOCATION]);
      const denial = DENIED_FIELDS[key];
      if (denial) this.deny(denial);
      this.fail(
        'construct_not_allowed',
        `${type}.${key} is not allowed (the guard does not know this construct).`,
      );
    }
    return saved;
  }

  private locate(loc: unknown): void {
    if (typeof loc === 'number' && loc >= 0) this.at = loc;
  }

  leave(saved: number): void {
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
    const items = this.array(value);
    const out: string[] = [];
    for (let i = 0; i < items.length; i++) {
      const sval = stringValue(items[i]);
      if (sval === undefined) this.fail('construct_not_allowed', 'The parse tree holds an unexpected name.');
      out.push(sval);
    }
    return out;
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

  /** A SelectStmt that may come wrapped or unwrapped (set-operation arms); returns its output names. */
  select(value: unknown): readonly string[] {
    if (nodeType(value) === 'SelectStmt') this.visit('SelectStmt', (value as Fields).SelectStmt);
    else this.visit('SelectStmt', value);
    return this.outputs;
  }

  /** A statement node of any allowed kind (a WITH item); returns its output names. */
  statement(value: unknown): readonly string[] {
    this.outputs = [];
    this.outputSizes = undefined;
    this.node(value);
    return this.outputs;
  }

  // --- FROM -------------------------------------------------------------------------------------

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

/** The names of EXPR sublinks' first columns; the map is made only when a statement has such a sublink. */
class SublinkNames {
  private map: Map<object, string> | undefined;

  get(sublink: object): string | undefined {
    return this.map?.get(sublink);
  }

  set(sublink: object, name: string): void {
    this.map ??= new Map();
    this.map.set(sublink, name);
  }
}

/** libpg-query omits zero values: the modifier 0 of `numeric(5,0)` comes as `{ ival: {} }`. */
function isIntegerConst(f: Fields): boolean {
  return 'ival' in f && Object.keys(f).every((k) => k === 'ival' || k === LOCATION);
}

const TYPE_NAME: Rule = {
  fields: new Set(['names', 'typmods', 'typemod']),
  visit(w, f) {
    w.checkType(f);
  },
};
