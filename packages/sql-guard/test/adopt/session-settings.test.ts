import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import type { Guard } from '../../src/types.js';
import {
  type Engine,
  type EngineName,
  engineNames,
  openEngine,
  schema,
  testDialect,
} from '../run/engines.js';
import { recording, runError } from '../run/helpers.js';

/**
 * A session whose settings would change how the guard's judgement or its row counts read (issue 25: this refusal
 * was a plain Error) is refused with a coded GuardRunError, and the statement does not run.
 */
describe.each(engineNames)('session settings the runner depends on, on %s', (name: EngineName) => {
  let engine: Engine;
  let guard: Guard;
  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    guard = await createGuard({ dialect: testDialect });
  }, 120_000);
  afterAll(() => engine?.close());

  for (const setting of ['standard_conforming_strings = off', 'track_counts = off']) {
    it(`refuses a session with ${setting}: session_settings_invalid, nothing written`, async () => {
      const error = await runError(
        engine.transaction(async (s) => {
          await s.query(`SET LOCAL ${setting}`);
          const { session } = recording(s);
          return guard.run(session, "INSERT INTO audit (note) VALUES ('written')", { mode: 'execute' });
        }),
      );
      expect(error.code).toBe('session_settings_invalid');
      expect(error.message).toContain('standard_conforming_strings');
      expect(error.hint).toBeTruthy();
      const count = await engine.transaction((s) =>
        guard.run(s, "SELECT count(*) AS n FROM audit WHERE note = 'written'", { mode: 'query' }),
      );
      expect(count.statements[0]?.rows).toEqual([{ n: '0' }]);
    });
  }

  it('the refused INSERTs never ran: the serial they would have taken is still the first', async () => {
    const written = await engine.transaction((s) =>
      guard.run(s, "INSERT INTO audit (note) VALUES ('after') RETURNING id", { mode: 'execute' }),
    );
    expect(written.statements[0]?.rows).toEqual([{ id: 1 }]);
  });
});
