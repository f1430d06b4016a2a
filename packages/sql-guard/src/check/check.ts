import { parseSync } from 'libpg-query';
import { codePointIndex, utf8Length } from '../text/offsets.js';
import type {
  CheckedStatement,
  CheckOptions,
  CheckResult,
  Dialect,
  GuardErrorCode,
  GuardViolation,
  Limits,
  Mode,
  Operation,
} from '../types.js';
import { type CompiledDialect, compileDialect } from './dialect.js';
import { checkTotal } from './expansion.js';
import {
  complexityViolation,
  lexicalViolation,
  literalsExplainTriggers,
  MAX_STRUCTURAL_TOKENS,
  SHORT_INPUT,
  scan,
  type Token,
} from './lexical.js';
import { indexesOfBytes, stringConstStarts } from './literals.js';
import { statementName } from './names.js';
import { isSqlSpace, Source } from './source.js';
import { exceedsStructuralBudget } from './structural-bound.js';
import { MAX_SIGN_RUN, textFacts } from './text-facts.js';
import { Violation } from './violation.js';
import { Walker } from './walker.js';

/** One statement as libpg-query returns it (byte offsets; `stmt_len` absent means "to the end"). */
interface RawStatement {
  stmt: Record<string, unknown>;
  stmt_location?: number;
  stmt_len?: number;
}

const KINDS: Readonly<Record<string, Operation>> = {
  SelectStmt: 'select',
  InsertStmt: 'insert',
  UpdateStmt: 'update',
  DeleteStmt: 'delete',
};

/** "query mode" -> "Query mode"; a route ("/sql/query") stays as it is. */
const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Builds the synchronous, pure `check` for a dialect and limits. The parser must be loaded
 * (`await loadModule()` from libpg-query) before the returned function is called.
 */
export function createChecker(
  dialect: Dialect,
  limits: Limits,
): (sql: string, options: CheckOptions) => CheckResult {
  const compiled = compileDialect(dialect);
  return (sql, options) => {
    try {
      return check(compiled, limits, sql, options?.mode);
    } catch (error) {
      if (error instanceof Violation) return fail(new Source(String(sql)), error, undefined);
      // A bug in the guard must never let a statement through or escape as an exception.
      return {
        ok: false,
        error: {
          code: 'construct_not_allowed',
          message: 'The guard could not judge this SQL, so it is rejected.',
        },
      };
    }
  };
}

function check(dialect: CompiledDialect, limits: Limits, sql: string, mode: Mode | undefined): CheckResult {
  if (typeof sql !== 'string') return failure('syntax_error', 'The SQL must be a string.');
  if (mode !== 'query' && mode !== 'execute' && mode !== 'script') {
    return failure('statement_kind_mismatch', `Unknown mode ${String(mode)}; use query, execute or script.`);
  }
  if (sql.length > limits.maxSqlLength) {
    return failure(
      'sql_too_long',
      `The SQL is ${sql.length} characters long; the limit is ${limits.maxSqlLength}.`,
      'send the work in several smaller requests',
    );
  }
  const early = inputViolation(sql);
  if (early) return fail(new Source(sql), early, undefined);
  const long = sql.length > SHORT_INPUT;
  const facts = textFacts(sql, long);
  const source = new Source(sql, facts.ascii);

  // Inputs long enough to be deep are scanned before parsing (see complexityViolation), unless a cheap upper
  // bound of the count proves every statement within the budget.
  let tokens: Token[] | undefined;
  if (long) {
    const run = facts.signRun;
    if (run !== -1) {
      const v = new Violation(
        'construct_not_allowed',
        `The SQL holds a run of more than ${MAX_SIGN_RUN} + and - characters.`,
        'shorten the expression',
        utf8Length(sql, run),
      );
      return fail(source, v, undefined);
    }
    if (exceedsStructuralBudget(sql, MAX_STRUCTURAL_TOKENS)) {
      tokens = scan(sql);
      const complex = tokens && complexityViolation(tokens);
      if (complex) return fail(source, complex, undefined);
    }
  }

  let statements: RawStatement[];
  try {
    statements = parseSync(sql).stmts as unknown as RawStatement[];
  } catch (error) {
    return fail(source, parseViolation(sql, error), undefined);
  }
  const ranges = statements.map((s) => statementRange(source, s));

  if (tokens) {
    const lexical = lexicalViolation(tokens);
    if (lexical)
      return fail(source, lexical, mode === 'script' ? indexAt(source, ranges, lexical.byte) : undefined);
    return judge(dialect, limits, source, statements, ranges, mode, undefined);
  }
  if (facts.triggers.length === 0) return judge(dialect, limits, source, statements, ranges, mode, undefined);

  // A character that may begin a refused token occurs: scan only when it lies outside the string literals the
  // parser found (comments, quoted identifiers, dollar quotes and prefixed literals cannot hide there). The walk
  // reads every string constant anyway and notes where it begins, so the tree is read once; a lexical refusal
  // still comes before anything the walk found, as when the scan came first (the walk is pure).
  const stringConsts: number[] = [];
  let result: CheckResult;
  try {
    result = judge(dialect, limits, source, statements, ranges, mode, stringConsts);
  } catch (error) {
    const refused = lexicalRefusal(
      source,
      facts.triggers,
      stringConstStarts(statements, source),
      mode,
      ranges,
    );
    if (refused) return refused;
    throw error;
  }
  // A walk cut short by a refusal has not seen every constant: then the tree is read for them.
  const starts = result.ok ? indexesOfBytes(stringConsts, source) : stringConstStarts(statements, source);
  return lexicalRefusal(source, facts.triggers, starts, mode, ranges) ?? result;
}

/** The lexical refusal, if any, when the triggers are not all inside the literals starting at `literalStarts`. */
function lexicalRefusal(
  source: Source,
  triggers: readonly number[],
  literalStarts: readonly number[],
  mode: Mode,
  ranges: { offset: number; length: number }[],
): CheckResult | undefined {
  if (literalsExplainTriggers(source.text, literalStarts, triggers)) return undefined;
  const tokens = scan(source.text);
  if (!tokens) return failure('syntax_error', 'PostgreSQL cannot scan the SQL.');
  const lexical = lexicalViolation(tokens);
  if (!lexical) return undefined;
  return fail(source, lexical, mode === 'script' ? indexAt(source, ranges, lexical.byte) : undefined);
}

/** The statement count, then each statement's walk; `stringConsts` collects where string constants begin. */
function judge(
  dialect: CompiledDialect,
  limits: Limits,
  source: Source,
  statements: RawStatement[],
  ranges: { offset: number; length: number }[],
  mode: Mode,
  stringConsts: number[] | undefined,
): CheckResult {
  if (statements.length === 0) {
    return failure(
      'empty_sql',
      'The SQL holds no statement.',
      'send one SELECT, INSERT, UPDATE or DELETE statement',
    );
  }
  if (mode !== 'script' && statements.length > 1) {
    return fail(
      source,
      new Violation(
        'multiple_statements_not_allowed',
        `${sentence(dialect.texts.modes[mode])} takes exactly one statement; this SQL holds ${statements.length}.`,
        dialect.texts.oneStatement,
        statements[1]!.stmt_location ?? 0,
        { variant: mode, facts: { count: statements.length } },
      ),
      undefined,
    );
  }
  if (statements.length > limits.maxStatements) {
    return fail(
      source,
      new Violation(
        'too_many_statements',
        `The script holds ${statements.length} statements; the limit is ${limits.maxStatements}.`,
        'split the script into several requests',
        statements[limits.maxStatements]!.stmt_location ?? 0,
      ),
      undefined,
    );
  }

  const checked: CheckedStatement[] = [];
  for (let i = 0; i < statements.length; i++) {
    const index = mode === 'script' ? i : undefined;
    try {
      checked.push(checkStatement(dialect, source, statements[i]!, ranges[i]!, mode, limits, stringConsts));
    } catch (error) {
      if (error instanceof Violation) return fail(source, error, index);
      throw error;
    }
  }
  return { ok: true, statements: checked };
}

function checkStatement(
  dialect: CompiledDialect,
  source: Source,
  raw: RawStatement,
  range: { offset: number; length: number },
  mode: Mode,
  limits: Pick<Limits, 'maxExpandedNodes' | 'maxExpandedBytes'>,
  stringConsts: number[] | undefined,
): CheckedStatement {
  const at = raw.stmt_location ?? 0;
  const type = Object.keys(raw.stmt)[0] ?? '';
  const fields = raw.stmt[type];
  const kind = KINDS[type];
  if (!kind) {
    throw new Violation(
      'statement_not_allowed',
      `${statementName(type)} statements are not allowed.`,
      'only SELECT, INSERT, UPDATE and DELETE (WITH forms included) are allowed',
      at,
    );
  }
  if (mode === 'query' && kind !== 'select') {
    throw new Violation(
      'statement_kind_mismatch',
      `${sentence(dialect.texts.modes.query)} takes a read; this is ${kind.toUpperCase()}.`,
      dialect.texts.write,
      at,
      { variant: 'query_write', facts: { kind: kind.toUpperCase() } },
    );
  }
  if (mode === 'execute' && kind === 'select') {
    throw new Violation(
      'statement_kind_mismatch',
      `${sentence(dialect.texts.modes.execute)} takes INSERT, UPDATE or DELETE; this is SELECT.`,
      writesInWith(fields) ? dialect.texts.mixed : dialect.texts.read,
      at,
      { variant: writesInWith(fields) ? 'execute_mixed' : 'execute_read' },
    );
  }
  if (mode === 'query' && writesInWith(fields)) {
    throw new Violation(
      'statement_kind_mismatch',
      `${sentence(dialect.texts.modes.query)} takes a read-only SELECT; this one writes in its WITH clause.`,
      dialect.texts.mixed,
      at,
      { variant: 'query_writes_in_with' },
    );
  }
  const walker = new Walker(dialect, at, limits.maxExpandedNodes, limits.maxExpandedBytes);
  walker.stringConsts = stringConsts;
  walker.visit(type, fields);
  checkTotal(walker);
  const relations = walker.relations;
  const readOnly = kind === 'select' && relations.every((r) => r.access === 'read');
  if (mode === 'query' && !readOnly) {
    throw new Violation(
      'statement_kind_mismatch',
      `${sentence(dialect.texts.modes.query)} takes a read-only SELECT.`,
      dialect.texts.mixed,
      at,
      { variant: 'query_not_read_only' },
    );
  }
  return {
    sql: source.text.slice(range.offset, range.offset + range.length),
    kind,
    readOnly,
    relations,
    location: range,
  };
}

/** Whether a top-level SELECT's own WITH clause holds INSERT, UPDATE or DELETE. */
function writesInWith(fields: unknown): boolean {
  const withClause = (fields as { withClause?: { ctes?: unknown } } | undefined)?.withClause;
  if (!withClause || !Array.isArray(withClause.ctes)) return false;
  return withClause.ctes.some((cte) => {
    const query = (cte as { CommonTableExpr?: { ctequery?: object } }).CommonTableExpr?.ctequery;
    return query !== undefined && !('SelectStmt' in query);
  });
}

/** The statement's exact text (UTF-16 offset and length) without surrounding whitespace or its semicolon. */
function statementRange(source: Source, raw: RawStatement): { offset: number; length: number } {
  const startByte = raw.stmt_location ?? 0;
  let start = source.index(startByte);
  let end = raw.stmt_len ? source.index(startByte + raw.stmt_len) : source.text.length;
  const text = source.text;
  while (start < end && isSqlSpace(text.charCodeAt(start))) start++;
  while (
    end > start &&
    (isSqlSpace(text.charCodeAt(end - 1)) || (!raw.stmt_len && text.charCodeAt(end - 1) === 0x3b))
  )
    end--;
  return { offset: start, length: end - start };
}

function indexAt(
  source: Source,
  ranges: { offset: number; length: number }[],
  byte: number,
): number | undefined {
  const offset = source.index(byte);
  let index: number | undefined;
  for (let i = 0; i < ranges.length; i++) if (ranges[i]!.offset <= offset) index = i;
  return index ?? (ranges.length > 0 ? 0 : undefined);
}

/** NUL bytes (the parser would stop reading at one) and unpaired surrogates (not encodable as UTF-8). */
function inputViolation(sql: string): Violation | undefined {
  if (sql.length === 0)
    return new Violation(
      'empty_sql',
      'The SQL is empty.',
      'send one SELECT, INSERT, UPDATE or DELETE statement',
      -1,
    );
  const nul = sql.indexOf('\0');
  if (nul !== -1) {
    return new Violation(
      'syntax_error',
      'The SQL contains a NUL byte (\\0), which PostgreSQL does not accept.',
      'remove the NUL character',
      utf8Length(sql, nul),
    );
  }
  const isWellFormed = (sql as { isWellFormed?: () => boolean }).isWellFormed;
  const at = isWellFormed?.call(sql) ? -1 : loneSurrogate(sql);
  if (at !== -1) {
    return new Violation(
      'syntax_error',
      'The SQL contains an unpaired UTF-16 surrogate, which is not valid Unicode.',
      undefined,
      utf8Length(sql, at),
    );
  }
  return undefined;
}

function loneSurrogate(sql: string): number {
  for (let i = 0; i < sql.length; i++) {
    const c = sql.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = sql.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/**
 * libpg-query's errors. Unlike node locations, the error cursor counts characters (code points, as
 * PostgreSQL's errposition does), 0-based; it is turned into a byte offset like every other location.
 */
function parseViolation(sql: string, error: unknown): Violation {
  const details = (error as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
  const message = details?.message ?? (error instanceof Error ? error.message : String(error));
  const cursor =
    details?.cursorPosition === undefined ? -1 : utf8Length(sql, codePointIndex(sql, details.cursorPosition));
  if (error instanceof RangeError || /memory exhausted|stack depth/i.test(message)) {
    return new Violation(
      'construct_not_allowed',
      'The statement is nested too deeply for the parser.',
      'simplify it or split it into several statements',
      cursor,
    );
  }
  return new Violation('syntax_error', `PostgreSQL cannot parse the SQL: ${message}.`, undefined, cursor);
}

function failure(code: GuardErrorCode, message: string, hint?: string): CheckResult {
  const error: GuardViolation = { code, message };
  if (hint) error.hint = hint;
  return { ok: false, error };
}

function fail(source: Source, v: Violation, statementIndex: number | undefined): CheckResult {
  const error: GuardViolation = { code: v.code, message: v.message };
  if (v.hint) error.hint = v.hint;
  if (v.situation) {
    error.variant = v.situation.variant;
    if (v.situation.facts) error.facts = v.situation.facts;
  }
  if (v.byte >= 0) error.position = source.positionOfByte(v.byte);
  if (statementIndex !== undefined) error.statementIndex = statementIndex;
  return { ok: false, error };
}
