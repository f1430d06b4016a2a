/**
 * What `run` needs to know of a checked statement's parse tree to plan it:
 *
 * - `limit`: whether a read provably returns at most `maxReturnedRows` rows, so that it can run without a
 *   cursor (all its rows reach the client, and their number is the exact total). Only one shape is proven: a
 *   plain SELECT (no set operation, no locking clause, no INTO) whose top-level `LIMIT` is an integer literal,
 *   as a count (not `WITH TIES`, which may return more). Anything else keeps the cursor.
 * - `returning`: a write with a RETURNING list (its rows are measured through a data-modifying CTE).
 * - `dmlInWith`: the statement's own WITH holds a data-modifying CTE (then it cannot be nested in another WITH).
 * - `output`: a plain SELECT (no set operation, WITH, INTO, VALUES or locking clause) from exactly one relation,
 *   named unqualified and without column aliases, whose select list holds only columns of that relation (`col`,
 *   `alias.col`, `*`, `alias.*`): each output column is a column of the relation, of its type. With the
 *   catalog's column widths (column-widths.ts) its rows have a size known before it runs (lean.ts).
 */
import { parseSync } from 'libpg-query';
import type { CheckedStatement } from '../types.js';

export interface StatementShape {
  /** The top-level literal `LIMIT n` of a plain SELECT, or null. */
  limit: number | null;
  returning: boolean;
  dmlInWith: boolean;
  /** The output columns of a plain single-relation read, each a column of the relation; or null. */
  output: PlainOutput | null;
}

/** A read whose output columns are columns of one relation. */
export interface PlainOutput {
  /** As the statement names it (unqualified). */
  relation: string;
  /** In order: `*` (every column of the relation) or one column under its output name. */
  columns: ('*' | { name: string; column: string })[];
}

interface NameNode {
  String?: { sval?: string };
  A_Star?: unknown;
}

interface TargetNode {
  ResTarget?: { name?: string; val?: { ColumnRef?: { fields?: NameNode[] } } };
}

interface StatementNode {
  limitCount?: { A_Const?: { ival?: { ival?: number }; isnull?: boolean } };
  limitOption?: string;
  op?: string;
  lockingClause?: unknown;
  intoClause?: unknown;
  returningClause?: unknown;
  returningList?: unknown;
  withClause?: { ctes?: { CommonTableExpr?: { ctequery?: Record<string, unknown> } }[] };
  valuesLists?: unknown;
  targetList?: TargetNode[];
  fromClause?: {
    RangeVar?: {
      relname?: string;
      schemaname?: string;
      catalogname?: string;
      alias?: { aliasname?: string; colnames?: unknown };
    };
  }[];
}

const nothing: StatementShape = { limit: null, returning: false, dmlInWith: false, output: null };

/** The shape of each statement this process has seen. */
const shapes = new WeakMap<CheckedStatement, StatementShape>();

/** `statement` must be one that `check` accepted (its text parses as exactly one statement). */
export function statementShape(statement: CheckedStatement): StatementShape {
  let shape = shapes.get(statement);
  if (shape === undefined) {
    shape = shapeOf(statement.sql);
    shapes.set(statement, shape);
  }
  return shape;
}

/** Records a statement's shape computed elsewhere (the check pool's thread parsed it already). */
export function primeShape(statement: CheckedStatement, shape: StatementShape): void {
  shapes.set(statement, shape);
}

/** The shape of one statement's text (a parse). */
export function shapeOf(sql: string): StatementShape {
  let node: StatementNode | undefined;
  let kind: string | undefined;
  try {
    const stmts = parseSync(sql).stmts as unknown as { stmt?: Record<string, StatementNode> }[];
    if (stmts.length !== 1 || !stmts[0]?.stmt) return nothing;
    [kind] = Object.keys(stmts[0].stmt);
    node = kind === undefined ? undefined : stmts[0].stmt[kind];
  } catch {
    return nothing;
  }
  if (!node) return nothing;
  const dmlInWith = (node.withClause?.ctes ?? []).some(
    (cte) => !('SelectStmt' in (cte.CommonTableExpr?.ctequery ?? { SelectStmt: true })),
  );
  const returning = kind !== 'SelectStmt' && (node.returningClause ?? node.returningList) !== undefined;
  const select = kind === 'SelectStmt';
  return {
    limit: select ? limitOf(node) : null,
    returning,
    dmlInWith,
    output: select ? plainOutput(node) : null,
  };
}

/** The output columns of a plain SELECT from one relation whose select list names only its columns, or null. */
function plainOutput(select: StatementNode): PlainOutput | null {
  if (select.op !== 'SETOP_NONE' || select.withClause !== undefined || select.valuesLists !== undefined) {
    return null;
  }
  if (select.lockingClause !== undefined || select.intoClause !== undefined) return null;
  const from = select.fromClause;
  const range = from?.length === 1 ? from[0]?.RangeVar : undefined;
  if (!range?.relname || range.schemaname !== undefined || range.catalogname !== undefined) return null;
  if (range.alias?.colnames !== undefined) return null;
  // With an alias, only the alias qualifies the relation's columns (PostgreSQL refuses the relation's name).
  const qualifier = range.alias?.aliasname ?? range.relname;
  const columns: PlainOutput['columns'] = [];
  for (const target of select.targetList ?? []) {
    const fields = target.ResTarget?.val?.ColumnRef?.fields;
    if (!fields || fields.length === 0 || fields.length > 2) return null;
    if (fields.length === 2 && fields[0]?.String?.sval !== qualifier) return null;
    const last = fields[fields.length - 1];
    if (last?.A_Star !== undefined) {
      columns.push('*');
      continue;
    }
    const column = last?.String?.sval;
    if (column === undefined) return null;
    columns.push({ name: target.ResTarget?.name ?? column, column });
  }
  return { relation: range.relname, columns };
}

/** The top-level literal `LIMIT n` of a plain SELECT, or null. Exported for tests. */
export function literalLimit(sql: string): number | null {
  return shapeOf(sql).limit;
}

function limitOf(select: StatementNode): number | null {
  if (select.op !== 'SETOP_NONE' || select.limitOption !== 'LIMIT_OPTION_COUNT') return null;
  if (select.lockingClause !== undefined || select.intoClause !== undefined) return null;
  const constant = select.limitCount?.A_Const;
  if (!constant || constant.isnull || !constant.ival) return null;
  // libpg-query leaves a zero out of its JSON: `{ ival: {} }` is LIMIT 0.
  const n = constant.ival.ival ?? 0;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
