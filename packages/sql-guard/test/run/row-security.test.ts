import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard, type Guard, isRowSecurityRefusal } from '../../src/index.js';
import { schemaChangeCount } from '../../src/run/errors.js';
import type { Dialect, SqlSession } from '../../src/types.js';
import { type Engine, type EngineName, engineNames, openEngine } from './engines.js';
import { runError } from './helpers.js';

/**
 * A row-level security policy's refusal and a missing privilege share SQLSTATE 42501; the guard tells them apart by
 * the routine that raised the error, never by the message (which PostgreSQL writes in the language it is set to).
 * A policy's refusal is the statement's own failure; a privilege gone may be the schema changing under the guard,
 * which has every connection's dialect verified again (schemaChangeCount).
 */
const role = `guard_rls_${randomBytes(4).toString('hex')}`;
const dialect: Dialect = {
  relations: { notes: { operations: ['select', 'insert'], columns: ['id', 'tenant'] } },
  functions: [],
  castTypes: ['integer', 'text'],
};

describe.each(engineNames)('a 42501 on %s', (name: EngineName) => {
  let engine: Engine;
  let guard: Guard;
  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(`
      CREATE ROLE ${role} NOLOGIN;
      CREATE TABLE notes (id integer PRIMARY KEY, tenant text NOT NULL);
      ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
      CREATE POLICY own_tenant ON notes USING (tenant = 'a') WITH CHECK (tenant = 'a');
      GRANT SELECT, INSERT ON notes TO ${role};
    `);
    guard = await createGuard({ dialect });
  }, 120_000);
  afterAll(async () => {
    await guard?.close();
    await engine?.exec(`DROP OWNED BY ${role}; DROP ROLE ${role}`).catch(() => undefined);
    await engine?.close();
  });

  const asRole = <T>(fn: (session: SqlSession) => Promise<T>) =>
    engine.transaction(
      async (session) => {
        await session.query(`SET LOCAL ROLE ${role}`);
        return fn(session);
      },
      { rollback: true },
    );

  it("from a policy's WITH CHECK is the statement's failure, read by its routine", async () => {
    const seen = schemaChangeCount();
    const error = await runError(
      asRole((session) =>
        guard.run(session, "INSERT INTO notes (id, tenant) VALUES (1, 'b')", { mode: 'execute' }),
      ),
    );
    expect(error.code).toBe('sql_execution_failed');
    expect(error.details).toMatchObject({ sqlstate: '42501', routine: 'ExecWithCheckOptions' });
    expect(isRowSecurityRefusal(error.details)).toBe(true);
    expect(schemaChangeCount()).toBe(seen);
  });

  it('from a privilege taken away is no policy, and may be the schema changing', async () => {
    const ok = await asRole((session) => guard.run(session, 'SELECT id FROM notes', { mode: 'query' }));
    expect(ok.statements[0]?.rows).toEqual([]);
    await engine.exec(`REVOKE SELECT ON notes FROM ${role}`);
    const seen = schemaChangeCount();
    const error = await runError(
      asRole((session) => guard.run(session, 'SELECT id FROM notes', { mode: 'query' })),
    );
    expect(error.code).toBe('sql_execution_failed');
    expect(error.details.sqlstate).toBe('42501');
    expect(error.details.routine).toEqual(expect.any(String));
    expect(isRowSecurityRefusal(error.details)).toBe(false);
    expect(schemaChangeCount()).toBe(seen + 1);
  });
});
