import type { Dialect, Mode, Operation } from '../types.js';
import { canonicalType } from './names.js';

export interface CompiledRelation {
  operations: ReadonlySet<Operation>;
  columns: readonly string[];
  /** Some of the table's columns are private: nothing positional (`*`, NATURAL, alias lists) may be derived from it. */
  partial: boolean;
}

/** A dialect in the shape the walk consults: sets and maps instead of arrays, and the lists hints name. */
export interface CompiledDialect {
  relations: ReadonlyMap<string, CompiledRelation>;
  functions: ReadonlySet<string>;
  castTypes: ReadonlySet<string>;
  relationList: string;
  /** The allowed functions as a hint names them: "SUM, COUNT" or "none". */
  functionList: string;
  typeList: string;
  /** The texts of refusals that name a mode: the dialect's own, or the guard's (naming modes). */
  texts: ModeTexts;
}

export interface ModeTexts {
  modes: Record<Mode, string>;
  read: string;
  write: string;
  mixed: string;
  oneStatement: string;
}

function modeTexts(dialect: Dialect): ModeTexts {
  const hints = dialect.hints ?? {};
  return {
    modes: { query: 'query mode', execute: 'execute mode', script: 'script mode', ...hints.modes },
    read: hints.read ?? 'run reads (SELECT) in query mode',
    write: hints.write ?? 'run one INSERT, UPDATE or DELETE in execute mode',
    mixed: hints.mixed ?? 'run a statement that reads and writes in one WITH in script mode',
    oneStatement:
      hints.oneStatement ??
      'send one statement at a time, or the statements together in script mode, which runs them atomically',
  };
}

export function compileDialect(dialect: Dialect): CompiledDialect {
  const relations = new Map<string, CompiledRelation>();
  for (const [name, relation] of Object.entries(dialect.relations)) {
    relations.set(name, {
      operations: new Set(relation.operations),
      columns: Array.isArray(relation.columns) ? [...relation.columns] : [],
      partial: relation.partial === true,
    });
  }
  const functions = new Set(dialect.functions.map((f) => f.toLowerCase()));
  const castTypes = new Set(dialect.castTypes.map((t) => canonicalType(t.toLowerCase())));
  return {
    relations,
    functions,
    castTypes,
    relationList: [...relations.keys()].join(', ') || 'none',
    functionList: [...functions].map((f) => f.toUpperCase()).join(', ') || 'none',
    typeList: [...castTypes].join(', ') || 'none',
    texts: modeTexts(dialect),
  };
}
