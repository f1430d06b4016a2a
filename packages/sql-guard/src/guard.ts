import { loadModule } from 'libpg-query';
import { createChecker } from './check/check.js';
import { expenseDialect } from './dialect/expense.js';
import { assertDialect } from './dialect/validate.js';
import { defaultLimits } from './limits.js';
import { CheckPool } from './pool/check-pool.js';
import { GuardCheckError } from './run/errors.js';
import { runStatements } from './run/run.js';
import { primeShape, type StatementShape } from './run/statement-shape.js';
import { dialectVerification } from './run/verification.js';
import type { CheckedStatement, CheckResult, Guard, GuardOptions, Mode } from './types.js';

/**
 * Texts of at least this many characters are checked off the main thread by `checkAsync`. Measured on the
 * worst shape we know (`SELECT 1 IN (1,1,...)`): 4,000 characters take about 9 ms to check, 16,000 about 90 ms.
 */
export const DEFAULT_OFF_THREAD_LENGTH = 4_000;

/** What a guard accepted: which guard, the text, the mode and a private copy of the statements. */
interface Issued {
  guard: object;
  sql: string;
  mode: Mode;
  statements: readonly CheckedStatement[];
}

/**
 * An accepted CheckResult as `check` returns it. The private field cannot be set or read outside this class,
 * so no caller can forge what `run` trusts (a WeakMap from results did the same at a higher cost per check).
 */
class AcceptedResult {
  readonly ok = true as const;
  readonly statements: CheckedStatement[];
  readonly #issued: Issued;

  constructor(statements: CheckedStatement[], issued: Issued) {
    this.statements = statements;
    this.#issued = issued;
  }

  static issued(result: unknown): Issued | undefined {
    return typeof result === 'object' && result !== null && #issued in result
      ? (result as AcceptedResult).#issued
      : undefined;
  }
}

/**
 * Loads the PostgreSQL parser (WebAssembly) once and returns a guard for a dialect and limits. A malformed dialect
 * is refused (InvalidDialectError, listing every problem).
 */
export async function createGuard(options: GuardOptions = {}): Promise<Guard> {
  const dialect = options.dialect ?? expenseDialect;
  assertDialect(dialect);
  await loadModule();
  const limits = { ...defaultLimits, ...options.limits };
  const checker = createChecker(dialect, limits);
  const verify = dialectVerification(dialect);
  // Accepted results this guard handed out carry a private copy, so `run` can skip parsing again. The copy, not
  // the caller's object, is what runs: changing the returned result afterwards cannot change what was judged.
  const remember = (sql: string, mode: Mode, result: CheckResult, shapes?: StatementShape[]) => {
    if (!result.ok) return result;
    const statements = result.statements.map(copyStatement);
    if (shapes) {
      statements.forEach((statement, i) => {
        const shape = shapes[i];
        if (shape) primeShape(statement, shape);
      });
    }
    return new AcceptedResult(result.statements, { guard: token, sql, mode, statements });
  };
  const token = {};
  const check: Guard['check'] = (sql, checkOptions) =>
    remember(sql, checkOptions.mode, checker(sql, checkOptions));
  const minLength = options.checkPool?.minLength ?? DEFAULT_OFF_THREAD_LENGTH;
  let pool: CheckPool | undefined;
  const checkAsync: Guard['checkAsync'] = async (sql, checkOptions) => {
    // Short texts (and anything that is not a string) are judged inline: a thread hop costs more than they do.
    if (typeof sql !== 'string' || sql.length < minLength) return check(sql, checkOptions);
    pool ??= new CheckPool(dialect, limits, options.checkPool);
    const { result, shapes } = await pool.check(sql, checkOptions.mode);
    return remember(sql, checkOptions.mode, result, shapes);
  };
  const accepted = (sql: string, mode: Mode, checked: CheckResult | undefined) => {
    const known = AcceptedResult.issued(checked);
    if (known && known.guard === token && known.sql === sql && known.mode === mode) return known.statements;
    const result = checker(sql, { mode });
    if (!result.ok) throw new GuardCheckError(result.error);
    return result.statements;
  };
  return {
    dialect,
    limits,
    check,
    checkAsync,
    close: async () => {
      const closing = pool;
      pool = undefined;
      await closing?.close();
    },
    run: async (session, sql, runOptions) =>
      runStatements(
        accepted(sql, runOptions.mode, runOptions.checked),
        limits,
        session,
        sql,
        runOptions,
        verify,
      ),
  };
}

function copyStatement(s: CheckedStatement): CheckedStatement {
  return {
    sql: s.sql,
    kind: s.kind,
    readOnly: s.readOnly,
    relations: s.relations.map((r) => ({ name: r.name, access: r.access })),
    location: { offset: s.location.offset, length: s.location.length },
  };
}
