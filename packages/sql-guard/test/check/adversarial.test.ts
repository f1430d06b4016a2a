import { describe, expect, it } from 'vitest';
import { attackCases as cases } from './attacks.js';
import { guard } from './helpers.js';

describe('adversarial suite', () => {
  it('holds at least 300 statements', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
  });

  it('rejects every statement with the expected code', () => {
    const wrong: string[] = [];
    for (const [sql, code, mode = 'query'] of cases) {
      const result = guard.check(sql, { mode });
      const got = result.ok ? 'accepted' : result.error.code;
      if (got !== code)
        wrong.push(`${mode} ${JSON.stringify(sql.slice(0, 120))}: expected ${code}, got ${got}`);
    }
    expect(wrong).toEqual([]);
  });
});
