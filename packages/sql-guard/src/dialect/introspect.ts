/** introspectDialect: a dialect read from the catalog, so that nobody types what the database already knows. */
import type { Dialect, DialectHints, Operation } from '../types.js';
import { type CatalogClient, identifier, reachableRelations, readRelations } from './catalog.js';
import { catalogRead, IntrospectionError } from './errors.js';

export interface IntrospectOptions {
  /** Whose privileges decide the relations and their operations; default the client's current_user. */
  role?: string;
  /** The schema to read; default `public`. Statements name its relations unqualified (it must be on their search_path). */
  schema?: string;
  /**
   * The relations to take (default: every table and view of the schema on which the role holds a privilege, but
   * partitions, which are read through their parent), by
   * name, or with the operations to allow (each must be granted to the role, verifyDialect says so otherwise).
   */
  relations?: readonly string[] | Readonly<Record<string, readonly Operation[]>>;
  /** Allowed function-like constructs, lower case (the catalog cannot say which of its functions are safe). */
  functions: readonly string[];
  /** Allowed cast and typed-literal target types. */
  castTypes: readonly string[];
  /** The dialect's own hint texts. */
  hints?: DialectHints;
  /**
   * The column that names a row's tenant (for verifyDialect's `cross_tenant_reference`): introspection fails when no
   * relation read carries it, so a misspelt name cannot make that check pass unseen.
   */
  tenantColumn?: string;
}

const OPERATIONS: readonly Operation[] = ['select', 'insert', 'update', 'delete'];

/**
 * Reads the relations of a schema, their columns in table order, and the operations the role holds on them. A
 * relation whose columns the role may read only in part (column privileges) is `partial`, with the readable columns.
 * A relation named in `relations` that does not exist, or on which the role holds nothing, is an error: an
 * IntrospectionError (code `introspection_failed`), as is a failed catalog read.
 */
export function introspectDialect(client: CatalogClient, options: IntrospectOptions): Promise<Dialect> {
  return catalogRead('introspectDialect', () => introspect(client, options));
}

async function introspect(client: CatalogClient, options: IntrospectOptions): Promise<Dialect> {
  const schema = options.schema ?? 'public';
  const wanted = options.relations;
  const names: string[] =
    wanted === undefined
      ? (await reachableRelations(client, [schema], options.role, { partitions: false })).map((r) => r.name)
      : Array.isArray(wanted)
        ? [...(wanted as readonly string[])]
        : Object.keys(wanted);
  const read = await readRelations(
    client,
    names.map((name) => ({ name, qualified: `${identifier(schema)}.${identifier(name)}` })),
    options.role,
  );
  const relations: Dialect['relations'] = {};
  const problems: string[] = [];
  for (const relation of read) {
    if (!relation.found) {
      problems.push(`relation ${schema}.${relation.name} does not exist`);
      continue;
    }
    const chosen =
      wanted !== undefined && !Array.isArray(wanted)
        ? (wanted as Readonly<Record<string, readonly Operation[]>>)[relation.name]
        : undefined;
    const operations = chosen
      ? OPERATIONS.filter((o) => chosen.includes(o))
      : OPERATIONS.filter((o) => (relation.partial ? relation.grantedReadable : relation.granted).has(o));
    if (operations.length === 0) {
      problems.push(`the role holds no operation on ${schema}.${relation.name}`);
      continue;
    }
    relations[relation.name] = relation.partial
      ? { operations, columns: relation.readable, partial: true }
      : { operations, columns: relation.columns };
  }
  const tenant = options.tenantColumn;
  if (tenant !== undefined && !read.some((r) => r.columns.includes(tenant))) {
    problems.push(`no relation read has the tenant column ${tenant}`);
  }
  if (problems.length > 0) throw new IntrospectionError(problems);
  return {
    relations,
    functions: [...options.functions],
    castTypes: [...options.castTypes],
    ...(options.hints ? { hints: options.hints } : {}),
  };
}
