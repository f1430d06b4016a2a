// A suite whose dependency is missing: skipped with its reason on a developer's machine, a failure under CI or
// EXPENSE_REQUIRE_ALL=1 (the environment is passed in: the shared unit worker's process.env is left alone).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requireAll, suiteRuns } from '../src/system-dependency.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('requireAll', () => {
  it('is on for CI set to anything but false or 0, and for EXPENSE_REQUIRE_ALL=1', () => {
    expect(requireAll({})).toBe(false);
    expect(requireAll({ CI: '' })).toBe(false);
    expect(requireAll({ CI: 'false' })).toBe(false);
    expect(requireAll({ CI: '0' })).toBe(false);
    expect(requireAll({ EXPENSE_REQUIRE_ALL: '0' })).toBe(false);
    expect(requireAll({ CI: 'true' })).toBe(true);
    expect(requireAll({ CI: '1' })).toBe(true);
    expect(requireAll({ EXPENSE_REQUIRE_ALL: '1' })).toBe(true);
  });
});

describe('suiteRuns', () => {
  it('runs when nothing is missing, whatever the environment', () => {
    expect(suiteRuns('a suite', [], 'apt-get install x', {})).toBe(true);
    expect(suiteRuns('a suite', [], 'apt-get install x', { CI: 'true' })).toBe(true);
  });

  it('skips outside CI and prints what is missing and how to install it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(suiteRuns('the pooler suite', ['pgbouncer'], 'apt-get install pgbouncer', {})).toBe(false);
    expect(warn).toHaveBeenCalledWith(
      'skipped: the pooler suite: pgbouncer missing; install with: apt-get install pgbouncer',
    );
  });

  it('fails under CI or EXPENSE_REQUIRE_ALL=1 with the same words', () => {
    for (const env of [{ CI: 'true' }, { EXPENSE_REQUIRE_ALL: '1' }]) {
      expect(() => suiteRuns('the pooler suite', ['pgbouncer'], 'apt-get install pgbouncer', env)).toThrow(
        /^the pooler suite: pgbouncer missing; install with: apt-get install pgbouncer \(CI or EXPENSE_REQUIRE_ALL=1/,
      );
    }
  });
});
