import { describe, expect, it } from 'vitest';
import { createGuard, expenseDialect, InvalidDialectError } from '../../src/index.js';
import type { Dialect } from '../../src/types.js';

/** createGuard validates the dialect's shape and lists every problem (issue 25: `columns: 'abc'` was accepted). */
describe('createGuard validates the dialect', () => {
  const refusal = async (dialect: unknown): Promise<InvalidDialectError> => {
    const error = await createGuard({ dialect: dialect as Dialect }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidDialectError);
    return error as InvalidDialectError;
  };

  it('refuses a malformed dialect, naming every problem', async () => {
    const error = await refusal({
      relations: {
        orders: { operations: ['selec'], columns: 'abc' },
        Products: { operations: [], columns: ['id', 'id', 'Name'] },
      },
      functions: ['count', 7],
      castTypes: 'text',
      relation: {},
    });
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('relations.orders.operations holds "selec"'),
        expect.stringContaining('relations.orders.columns must be an array'),
        expect.stringContaining('relation name "Products"'),
        expect.stringContaining('relations.Products.operations must be a non-empty array'),
        expect.stringContaining('relations.Products.columns lists "id" twice'),
        expect.stringContaining('relations.Products.columns[2] "Name" is not a lower-case unquoted name'),
        expect.stringContaining("make it private (revoke the role's SELECT on it"),
        expect.stringContaining('functions[1] must be a non-empty string'),
        expect.stringContaining('castTypes must be an array'),
        expect.stringContaining('unknown key "relation"'),
      ]),
    );
    expect(error.problems).toHaveLength(9);
    for (const problem of error.problems) expect(error.message).toContain(problem);
  });

  it('refuses hints that are not texts', async () => {
    const error = await refusal({ ...expenseDialect, hints: { read: 3, modes: { qery: '/q' } } });
    expect(error.problems).toHaveLength(2);
  });

  it('accepts the expense dialect and a dialect with its own hints', async () => {
    await expect(createGuard()).resolves.toBeDefined();
    await expect(
      createGuard({ dialect: { ...expenseDialect, hints: { modes: { query: '/sql/query' } } } }),
    ).resolves.toBeDefined();
  });
});
