/**
 * Column bounds from a relation's validated CHECK constraints (column-widths.ts takes the tighter of these and the
 * type's bound). The catalog's text of each constraint (pg_get_expr) is parsed with libpg-query as `SELECT <expr>`
 * and walked; nothing else is believed.
 *
 * A CHECK passes when its expression is true or NULL. In its top-level AND chain no accepted row has a false
 * conjunct, so a conjunct that is NULL only when the column is NULL holds for every non-NULL value of the column.
 * Only such conjuncts count, of these forms (operands either way round):
 *
 * - `char_length(c)` (`character_length`, `length`) `<= N`, `< N`, `= N`: at most N characters; `BETWEEN a AND N`
 *   likewise. `c` a text or varchar column (a domain over one counts as it), or `(c)::text` of one; or `(c)::text`
 *   of a numeric column, whose text is what the serializer sends (a string of ASCII characters).
 * - `c IN ('…', …)`, `c = ANY (ARRAY['…', …])`, `c = '…'`: the longest literal (not NULL); `c` as above, when
 *   the column's collation is deterministic (a nondeterministic one lets other texts compare equal).
 * - numeric `c`: `scale(c) <= S` (`<`, `=`) together with an upper and a lower bound, `c <= U` (`<`), `c >= L`
 *   (`>`), `c BETWEEN L AND U`, or `abs(c) < M` (`<=`): the longest text of a value within them, a sign, the
 *   integer digits, the point and S digits. NaN and ±Infinity fail either bound; their scale is NULL.
 *
 * Anything else (OR, NOT, other functions, casts to other types or with a modifier, COLLATE, qualified operators)
 * bounds nothing. Which constraints count (validated ones of a plain table without children) is the catalog
 * query's choice (column-widths.ts). Function names are those of pg_catalog, unqualified or qualified so: the catalog deparses a
 * function with its schema when the session's search_path would not find it by its bare name.
 */
import { parseSync } from 'libpg-query';

/** OIDs of the column types the rules know (built-in types have the same OID in every database). */
const TEXT = 25;
const VARCHAR = 1043;
const NUMERIC = 1700;

/** What the rules need of a column: its type (a domain's base type) and whether its collation is deterministic. */
export interface CheckColumn {
  /** The type OID, or null when unknown (a domain over a domain). */
  readonly type: number | null;
  readonly deterministic: boolean;
}

/** A string of `characters` characters as JSON: quotes, and at most 6 bytes a character (`\u001f`). */
const jsonString = (characters: number): number => 2 + 6 * characters;

type Node = Record<string, unknown>;

const node = (value: unknown, kind: string): Node | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as Node)[kind];
  return typeof inner === 'object' && inner !== null ? (inner as Node) : undefined;
};

const strings = (list: unknown): string[] | undefined => {
  if (!Array.isArray(list)) return undefined;
  const out: string[] = [];
  for (const item of list) {
    const s = node(item, 'String')?.sval;
    if (typeof s !== 'string') return undefined;
    out.push(s);
  }
  return out;
};

/** The type a cast names, when it is a plain built-in one (no modifier, no array bounds unless `array`). */
function castTarget(cast: Node, array = false): string | undefined {
  const typeName = cast.typeName as Node | undefined;
  if (!typeName || typeName.typmods !== undefined || typeName.setof || typeName.pct_type) return undefined;
  const bounds = typeName.arrayBounds;
  if (array ? !Array.isArray(bounds) || bounds.length !== 1 : bounds !== undefined) return undefined;
  const names = strings(typeName.names);
  if (!names || names.length === 0 || names.length > 2) return undefined;
  if (names.length === 2 && names[0] !== 'pg_catalog') return undefined;
  return names[names.length - 1];
}

/** The bare name of a pg_catalog function called with one plain argument, and the argument. */
function call(value: unknown): { name: string; arg: unknown } | undefined {
  const fn = node(value, 'FuncCall');
  if (!fn) return undefined;
  const names = strings(fn.funcname);
  if (!names || names.length === 0 || names.length > 2) return undefined;
  if (names.length === 2 && names[0] !== 'pg_catalog') return undefined;
  const args = fn.args;
  if (!Array.isArray(args) || args.length !== 1) return undefined;
  if (fn.agg_order || fn.agg_filter || fn.over || fn.agg_star || fn.agg_distinct || fn.func_variadic)
    return undefined;
  if (fn.funcformat !== undefined && fn.funcformat !== 'COERCE_EXPLICIT_CALL') return undefined;
  if (node(args[0], 'NamedArgExpr')) return undefined;
  return { name: names[names.length - 1] as string, arg: args[0] };
}

/** A column reference `c` by its one name. */
const columnName = (value: unknown): string | undefined => {
  const ref = node(value, 'ColumnRef');
  const names = ref && strings(ref.fields);
  return names?.length === 1 ? names[0] : undefined;
};

/** `c` or `(c)::text` / `(c)::varchar`: the column whose text it is, and whether it was cast. */
function textOf(value: unknown): { column: string; cast: boolean } | undefined {
  const direct = columnName(value);
  if (direct !== undefined) return { column: direct, cast: false };
  const cast = node(value, 'TypeCast');
  if (!cast) return undefined;
  const target = castTarget(cast);
  if (target !== 'text' && target !== 'varchar') return undefined;
  const column = columnName(cast.arg);
  return column === undefined ? undefined : { column, cast: true };
}

/** A decimal as the catalog writes it: its sign, its integer part and whether it has a nonzero fraction. */
interface Decimal {
  negative: boolean;
  integer: bigint;
  fraction: boolean;
}

function decimal(text: string): Decimal | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, whole = '', fractional = '', exponent = '0'] = m;
  if (whole === '' && fractional === '') return undefined;
  const digits = whole + fractional;
  const point = whole.length + Number(exponent);
  if (point > 1000) return undefined;
  const integerDigits = point <= 0 ? '' : digits.slice(0, point).padEnd(point, '0');
  const rest = point <= 0 ? digits : digits.slice(Math.max(0, point));
  return {
    negative: sign === '-' && /[1-9]/.test(digits),
    integer: BigInt(integerDigits || '0'),
    fraction: /[1-9]/.test(rest),
  };
}

/** A numeric constant: an integer or decimal literal, or a string cast to a numeric or integer type. */
function constant(value: unknown): Decimal | undefined {
  const cast = node(value, 'TypeCast');
  if (cast) {
    const target = castTarget(cast);
    if (!target || !['numeric', 'int2', 'int4', 'int8'].includes(target)) return undefined;
    return constant(cast.arg) ?? stringConstant(cast.arg, decimal);
  }
  const c = node(value, 'A_Const');
  if (!c || c.isnull) return undefined;
  const ival = node(c, 'ival');
  if (ival) return decimal(String(typeof ival.ival === 'number' ? ival.ival : 0));
  const fval = node(c, 'fval');
  if (fval && typeof fval.fval === 'string') return decimal(fval.fval);
  return undefined;
}

function stringConstant<T>(value: unknown, read: (text: string) => T | undefined): T | undefined {
  const c = node(value, 'A_Const');
  const sval = c && !c.isnull ? node(c, 'sval') : undefined;
  if (!sval) return undefined;
  return read(typeof sval.sval === 'string' ? sval.sval : '');
}

/** A string literal, bare or cast to text or varchar (no modifier, which could pad or cut it). */
function textLiteral(value: unknown): string | undefined {
  const cast = node(value, 'TypeCast');
  if (cast) {
    const target = castTarget(cast);
    return target === 'text' || target === 'varchar' ? textLiteral(cast.arg) : undefined;
  }
  return stringConstant(value, (text) => text);
}

/** The elements of `IN (…)` or `ANY (ARRAY[…])` (the array possibly cast to text[] or varchar[]). */
function literalList(kind: unknown, right: unknown): string[] | undefined {
  let items: unknown;
  if (kind === 'AEXPR_IN') {
    items = node(right, 'List')?.items;
  } else {
    let array = right;
    const cast = node(right, 'TypeCast');
    if (cast) {
      const target = castTarget(cast, true);
      if (target !== 'text' && target !== 'varchar') return undefined;
      array = cast.arg;
    }
    items = node(array, 'A_ArrayExpr')?.elements;
  }
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const out: string[] = [];
  for (const item of items) {
    const text = textLiteral(item);
    if (text === undefined) return undefined;
    out.push(text);
  }
  return out;
}

/** The largest integer part of a value below `limit` (`strict`) or at most it; null when no value is. */
function largestInteger(limit: Decimal, strict: boolean): bigint | null {
  if (limit.negative) return null;
  if (strict && !limit.fraction) return limit.integer > 0n ? limit.integer - 1n : null;
  return limit.integer;
}

const flip: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

/** What the conjuncts say of one column. */
interface Facts {
  characters?: number;
  literalBytes?: number;
  /** For a numeric column: its scale, the largest integer part above zero and below it (-1n: none). */
  scale?: number;
  upper?: bigint;
  lower?: bigint;
}

const lower = (a: number | undefined, b: number): number => (a === undefined ? b : Math.min(a, b));
const lowerBig = (a: bigint | undefined, b: bigint): bigint => (a === undefined || b < a ? b : a);

/**
 * The bound in bytes of each column of one relation its CHECK constraints (`expressions`, as pg_get_expr
 * writes them) give; a column without one is left out.
 */
export function checkBounds(
  expressions: readonly string[],
  columns: ReadonlyMap<string, CheckColumn>,
): Map<string, number> {
  const facts = new Map<string, Facts>();
  const of = (column: string): Facts => {
    let f = facts.get(column);
    if (!f) {
      f = {};
      facts.set(column, f);
    }
    return f;
  };
  const typeOf = (column: string): number | null | undefined => columns.get(column)?.type;
  /** The column whose text `value` is, when the text rules apply to it. */
  const textColumn = (value: unknown): string | undefined => {
    const text = textOf(value);
    if (!text) return undefined;
    const type = typeOf(text.column);
    return type === TEXT || type === VARCHAR || (type === NUMERIC && text.cast) ? text.column : undefined;
  };

  const characters = (left: unknown, op: string, right: unknown): void => {
    const fn = call(left);
    if (!fn || !['char_length', 'character_length', 'length'].includes(fn.name)) return;
    const column = textColumn(fn.arg);
    const limit = constant(right);
    if (column === undefined || !limit || (op !== '<' && op !== '<=' && op !== '=')) return;
    const largest = largestInteger(limit, op === '<');
    const max = largest === null ? 0 : Number(largest);
    of(column).characters = lower(of(column).characters, max);
  };

  const numeric = (left: unknown, op: string, right: unknown): void => {
    const limit = constant(right);
    if (!limit) return;
    const strict = op === '<' || op === '>';
    const fn = call(left);
    if (fn) {
      const column = columnName(fn.arg);
      if (column === undefined || typeOf(column) !== NUMERIC) return;
      if (fn.name === 'scale' && (op === '<' || op === '<=' || op === '=')) {
        const largest = largestInteger(limit, op === '<');
        of(column).scale = Math.min(of(column).scale ?? Number.POSITIVE_INFINITY, Number(largest ?? 0n));
      } else if (fn.name === 'abs' && (op === '<' || op === '<=')) {
        const largest = largestInteger(limit, strict) ?? -1n;
        of(column).upper = lowerBig(of(column).upper, largest);
        of(column).lower = lowerBig(of(column).lower, largest);
      }
      return;
    }
    const column = columnName(left);
    if (column === undefined || typeOf(column) !== NUMERIC) return;
    if (op === '<' || op === '<=') {
      // c <= U: above zero, integer parts up to U's; U below zero leaves no positive value.
      of(column).upper = lowerBig(of(column).upper, largestInteger(limit, strict) ?? -1n);
    } else if (op === '>' || op === '>=') {
      // c >= L: below zero, integer parts up to |L|'s; L at or above zero leaves no negative value.
      const magnitude = { ...limit, negative: !limit.negative };
      of(column).lower = lowerBig(of(column).lower, largestInteger(magnitude, strict) ?? -1n);
    }
  };

  const literals = (left: unknown, values: string[]): void => {
    const column = textColumn(left);
    if (column === undefined || !columns.get(column)?.deterministic) return;
    const bytes = Math.max(...values.map((v) => Buffer.byteLength(JSON.stringify(v))));
    of(column).literalBytes = lower(of(column).literalBytes, bytes);
  };

  const conjunct = (value: unknown): void => {
    const bool = node(value, 'BoolExpr');
    if (bool) {
      if (bool.boolop === 'AND_EXPR' && Array.isArray(bool.args)) for (const arg of bool.args) conjunct(arg);
      return;
    }
    const expr = node(value, 'A_Expr');
    if (!expr) return;
    const names = strings(expr.name);
    if (names?.length !== 1) return;
    const op = names[0] as string;
    if (expr.kind === 'AEXPR_OP' && Object.hasOwn(flip, op)) {
      for (const [left, right, o] of [
        [expr.lexpr, expr.rexpr, op],
        [expr.rexpr, expr.lexpr, flip[op] as string],
      ] as const) {
        characters(left, o, right);
        numeric(left, o, right);
        const text = o === '=' ? textLiteral(right) : undefined;
        if (text !== undefined) literals(left, [text]);
      }
    } else if (expr.kind === 'AEXPR_BETWEEN') {
      const bounds = node(expr.rexpr, 'List')?.items;
      if (!Array.isArray(bounds) || bounds.length !== 2) return;
      conjunct({
        A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '>=' } }], lexpr: expr.lexpr, rexpr: bounds[0] },
      });
      conjunct({
        A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '<=' } }], lexpr: expr.lexpr, rexpr: bounds[1] },
      });
    } else if ((expr.kind === 'AEXPR_IN' || expr.kind === 'AEXPR_OP_ANY') && op === '=') {
      const values = literalList(expr.kind, expr.rexpr);
      if (values) literals(expr.lexpr, values);
    }
  };

  for (const expression of expressions) {
    let target: unknown;
    try {
      const stmts = parseSync(`SELECT ${expression}`).stmts as unknown as { stmt?: Node }[];
      const select = stmts.length === 1 ? node(stmts[0]?.stmt, 'SelectStmt') : undefined;
      const list = select?.targetList;
      if (!select || select.fromClause || !Array.isArray(list) || list.length !== 1) continue;
      const res = node(list[0], 'ResTarget');
      if (!res || res.name !== undefined) continue;
      target = res.val;
    } catch {
      continue;
    }
    conjunct(target);
  }

  const bounds = new Map<string, number>();
  for (const [column, f] of facts) {
    const candidates: number[] = [];
    const numericColumn = typeOf(column) === NUMERIC;
    if (f.characters !== undefined)
      candidates.push(numericColumn ? 2 + f.characters : jsonString(f.characters));
    if (f.literalBytes !== undefined) candidates.push(f.literalBytes);
    if (numericColumn && f.scale !== undefined && f.upper !== undefined && f.lower !== undefined) {
      let largest = f.upper; // bigints: no Math.max
      if (f.lower > largest) largest = f.lower;
      const digits = largest < 0n ? 1 : largest.toString().length;
      // A sign, the integer digits, the point and the scale's digits, quoted.
      candidates.push(2 + 1 + digits + (f.scale > 0 ? 1 + f.scale : 0));
    }
    if (candidates.length > 0) bounds.set(column, Math.min(...candidates));
  }
  return bounds;
}
