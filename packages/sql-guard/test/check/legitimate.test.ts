import { describe, expect, it } from 'vitest';
import { cases, executes, queries } from './corpus.js';
import { guard } from './helpers.js';

describe('legitimate suite', () => {
  it('holds at least 100 statements', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it('accepts every statement an agent managing expenses would write', () => {
    const wrong: string[] = [];
    for (const [sql, mode] of cases) {
      const r = guard.check(sql, { mode });
      if (!r.ok) wrong.push(`${mode} ${sql.slice(0, 100)}: ${r.error.code} ${r.error.message}`);
    }
    expect(wrong).toEqual([]);
  });

  it('reports kinds and read-only flags', () => {
    for (const q of queries) {
      const r = guard.check(q, { mode: 'query' });
      expect(r.ok && r.statements[0]!.readOnly).toBe(true);
    }
    for (const q of executes) {
      const r = guard.check(q, { mode: 'execute' });
      expect(r.ok && r.statements[0]!.readOnly).toBe(false);
    }
  });
});
