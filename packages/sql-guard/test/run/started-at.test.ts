/** `startedAt`: the deadline counts from the request's arrival; a run that starts past it sends nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { GuardRunError } from '../../src/run/errors.js';
import type { Guard } from '../../src/types.js';
import { type Engine, engineNames, openEngine, schema, testDialect } from './engines.js';
import { recording } from './helpers.js';

describe.each(engineNames)('startedAt on %s', (name) => {
  let engine: Engine;
  let guard: Guard;
  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    guard = await createGuard({ dialect: testDialect, limits: { deadlineMs: 5_000 } });
  });
  afterAll(() => engine?.close());

  it('fails deadline_exceeded without sending anything when the request arrived longer ago than the deadline', async () => {
    const { error, sent } = await engine.transaction(
      async (s) => {
        const r = recording(s);
        const error = await guard
          .run(r.session, 'SELECT n FROM numbers', { mode: 'query', startedAt: Date.now() - 5_001 })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        return { error, sent: r.sent };
      },
      { rollback: true },
    );
    expect(error).toBeInstanceOf(GuardRunError);
    expect(error).toMatchObject({
      code: 'deadline_exceeded',
      details: { statementIndex: 0, deadlineMs: 5_000 },
    });
    expect(sent).toEqual([]);
  });

  it('runs a request that arrived within its deadline, with the time left as statement_timeout', async () => {
    const { result, sent } = await engine.transaction(
      async (s) => {
        const r = recording(s);
        const result = await guard.run(r.session, 'SELECT count(*) AS c FROM numbers', {
          mode: 'query',
          startedAt: Date.now() - 3_000,
        });
        return { result, sent: r.sent.join('\n') };
      },
      { rollback: true },
    );
    expect(result.statements[0]?.rows).toEqual([{ c: '250' }]);
    const timeout = Number(/statement_timeout = (\d+)/.exec(sent)?.[1]);
    expect(timeout).toBeGreaterThan(0);
    expect(timeout).toBeLessThanOrEqual(2_000);
  });

  it('refuses a startedAt that is not a time', async () => {
    await expect(
      engine.transaction((s) => guard.run(s, 'SELECT 1 AS one', { mode: 'query', startedAt: Number.NaN }), {
        rollback: true,
      }),
    ).rejects.toThrow(TypeError);
  });
});
