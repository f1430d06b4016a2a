import type { Dialect, Operation } from '../types.js';
import { canonicalType } from './names.js';

/** A dialect in the shape the walk consults: sets and maps instead of arrays. */
export interface CompiledDialect {
  relations: ReadonlyMap<string, ReadonlySet<Operation>>;
  functions: ReadonlySet<string>;
  castTypes: ReadonlySet<string>;
  relationList: string;
}

export function compileDialect(dialect: Dialect): CompiledDialect {
  const relations = new Map<string, ReadonlySet<Operation>>();
  for (const [name, { operations }] of Object.entries(dialect.relations))
    relations.set(name, new Set(operations));
  return {
    relations,
    functions: new Set(dialect.functions.map((f) => f.toLowerCase())),
    castTypes: new Set(dialect.castTypes.map((t) => canonicalType(t.toLowerCase()))),
    relationList: [...relations.keys()].join(', '),
  };
}
