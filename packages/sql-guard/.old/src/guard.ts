import { loadModule } from 'libpg-query';
import { createChecker } from './check/check.js';
import { expenseDialect } from './dialect/expense.js';
import { defaultLimits } from './limits.js';
import { GuardCheckError } from './run/errors.js';
import { runStatements } from './run/run.js';
import type { CheckedStatement, CheckResult, Guard, GuardOptions, Mode } from './types.js';

/** What this guard accepted: the text, the mode and a private copy of the statements. */
interface Issued {
  sql: string;
  mode: Mode;
  statements: readonly CheckedStatement[];
}

/** Loads the PostgreSQL parser (WebAssembly) once and returns a guard for a dialect and limits. */
export async function createGuard(options: GuardOptions = {}): Promise<Guard> {
  await loadModule();
  const dialect = options.dialect ?? expenseDialect;
  const limits = { ...defaultLimits, ...options.limits };
  const checker = createChecker(dialect, limits);
  // Accepted results this guard handed out, so `run` can skip parsing again. The copy, not the caller's
  // object, is what runs: changing the returned result afterwards cannot change what was judged.
  const issued = new WeakMap<CheckResult, Issued>();
  const check: Guard['check'] = (sql, checkOptions) => {
    const result = checker(sql, checkOptions);
    if (result.ok) {
      issued.set(result, { sql, mode: checkOptions.mode, statements: result.statements.map(copyStatement) });
    }
    return result;
  };
  const accepted = (sql: string, mode: Mode, checked: CheckResult | undefined) => {
    const known = checked && issued.get(checked);
    if (known && known.sql === sql && known.mode === mode) return known.statements;
    const result = checker(sql, { mode });
    if (!result.ok) throw new GuardCheckError(result.error);
    return result.statements;
  };
  return {
    dialect,
    limits,
    check,
    run: async (session, sql, runOptions) =>
      runStatements(accepted(sql, runOptions.mode, runOptions.checked), limits, session, sql, runOptions),
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
