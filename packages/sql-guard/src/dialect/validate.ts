/** The shape of a dialect, checked before a guard is built on it: every problem, not the first. */
import type { Dialect } from '../types.js';

/** createGuard (or grantStatements) refused a dialect; `problems` lists each thing wrong with it. */
export class InvalidDialectError extends TypeError {
  override readonly name = 'InvalidDialectError';
  readonly code = 'invalid_dialect' as const;
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`The dialect is malformed: ${problems.join('; ')}.`);
    this.problems = problems;
  }
}

/** A name a statement can write unquoted (quoted identifiers are refused): lower case, plain. */
const PLAIN = /^[a-z_][a-z0-9_$]*$/;
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete']);
const DIALECT_KEYS = new Set(['relations', 'functions', 'castTypes', 'hints']);
const HINT_KEYS = new Set(['modes', 'read', 'write', 'mixed', 'oneStatement']);
const MODES = new Set(['query', 'execute', 'script']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

function names(
  problems: string[],
  where: string,
  value: unknown,
  pattern: RegExp | undefined,
  cure = '',
): void {
  if (!Array.isArray(value)) {
    problems.push(`${where} must be an array of strings, not ${show(value)}`);
    return;
  }
  const seen = new Set<string>();
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.trim() === '') {
      problems.push(`${where}[${i}] must be a non-empty string, not ${show(item)}`);
    } else if (pattern && !pattern.test(item)) {
      problems.push(`${where}[${i}] ${show(item)} is not a lower-case unquoted name${cure}`);
    } else if (seen.has(item)) {
      problems.push(`${where} lists ${show(item)} twice`);
    }
    if (typeof item === 'string') seen.add(item);
  });
}

/** Every problem with the dialect's shape; [] when it is well formed. */
export function dialectProblems(dialect: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(dialect)) return [`the dialect must be an object, not ${show(dialect)}`];
  for (const key of Object.keys(dialect)) {
    if (!DIALECT_KEYS.has(key))
      problems.push(`unknown key ${show(key)} (a dialect has relations, functions, castTypes, hints)`);
  }
  const relations = dialect.relations;
  if (!isRecord(relations)) {
    problems.push(
      `relations must be an object of relation name to { operations, columns }, not ${show(relations)}`,
    );
  } else {
    for (const [name, relation] of Object.entries(relations)) {
      const where = `relations.${name}`;
      if (!PLAIN.test(name))
        problems.push(
          `relation name ${show(name)} is not a lower-case unquoted name (the guard refuses quoted identifiers, so no statement could name it): rename it, or leave it out of the dialect`,
        );
      if (!isRecord(relation)) {
        problems.push(`${where} must be { operations, columns, partial? }, not ${show(relation)}`);
        continue;
      }
      for (const key of Object.keys(relation)) {
        if (key !== 'operations' && key !== 'columns' && key !== 'partial')
          problems.push(`${where} has an unknown key ${show(key)}`);
      }
      if (relation.partial !== undefined && typeof relation.partial !== 'boolean')
        problems.push(`${where}.partial must be true or false, not ${show(relation.partial)}`);
      const operations = relation.operations;
      if (!Array.isArray(operations) || operations.length === 0) {
        problems.push(`${where}.operations must be a non-empty array of select, insert, update, delete`);
      } else {
        for (const operation of operations) {
          if (typeof operation !== 'string' || !OPERATIONS.has(operation)) {
            problems.push(
              `${where}.operations holds ${show(operation)}, not one of select, insert, update, delete`,
            );
          }
        }
        if (new Set(operations).size !== operations.length)
          problems.push(`${where}.operations lists an operation twice`);
      }
      names(
        problems,
        `${where}.columns`,
        relation.columns,
        PLAIN,
        " (the guard refuses quoted identifiers): rename it, or make it private (revoke the role's SELECT on it; the relation is then partial and introspectDialect leaves it out)",
      );
      if (Array.isArray(relation.columns) && relation.columns.length === 0) {
        problems.push(`${where}.columns must list the relation's columns`);
      }
    }
  }
  names(problems, 'functions', dialect.functions, PLAIN);
  names(problems, 'castTypes', dialect.castTypes, undefined);
  const hints = dialect.hints;
  if (hints !== undefined) {
    if (!isRecord(hints)) problems.push(`hints must be an object, not ${show(hints)}`);
    else {
      for (const [key, value] of Object.entries(hints)) {
        if (!HINT_KEYS.has(key)) problems.push(`hints has an unknown key ${show(key)}`);
        else if (key === 'modes') {
          if (!isRecord(value)) problems.push('hints.modes must be an object of mode to name');
          else {
            for (const [mode, text] of Object.entries(value)) {
              if (!MODES.has(mode) || typeof text !== 'string' || text === '')
                problems.push(
                  `hints.modes.${mode} must be a mode (query, execute, script) named by a non-empty string`,
                );
            }
          }
        } else if (typeof value !== 'string' || value === '')
          problems.push(`hints.${key} must be a non-empty string`);
      }
    }
  }
  return problems;
}

/** Throws InvalidDialectError listing every problem of a malformed dialect. */
export function assertDialect(dialect: unknown): asserts dialect is Dialect {
  const problems = dialectProblems(dialect);
  if (problems.length > 0) throw new InvalidDialectError(problems);
}
