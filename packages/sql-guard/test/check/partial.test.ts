import { describe, expect, it } from 'vitest';
import { createGuard, dialectProblems } from '../../src/index.js';
import type { Dialect, GuardErrorCode } from '../../src/types.js';

/**
 * A partial relation (column privileges keep `ssn` private): nothing positional is derived from it, since
 * PostgreSQL would count the private columns the guard does not know.
 */
const dialect: Dialect = {
  relations: {
    patients: {
      operations: ['select', 'insert', 'update'],
      columns: ['id', 'tenant_id', 'name'],
      partial: true,
    },
    visits: { operations: ['select', 'insert'], columns: ['id', 'tenant_id', 'patient_id', 'day'] },
  },
  functions: ['count'],
  castTypes: ['text', 'integer'],
};
const guard = await createGuard({ dialect });

function refused(
  sql: string,
  mode: 'query' | 'execute' = 'query',
  code: GuardErrorCode = 'column_not_allowed',
) {
  const result = guard.check(sql, { mode });
  if (result.ok) expect.fail(`accepted: ${sql}`);
  expect(result.error.code, `${sql}: ${result.error.message}`).toBe(code);
  return result.error;
}
const accepted = (sql: string, mode: 'query' | 'execute' = 'query') => {
  const result = guard.check(sql, { mode });
  expect(result.ok, result.ok ? sql : `${sql}: ${result.error.message}`).toBe(true);
};

describe('a partial relation', () => {
  it('refuses * and t.* over it, the hint listing the columns that may be named', () => {
    for (const sql of [
      'SELECT * FROM patients',
      'SELECT p.* FROM patients p',
      'TABLE patients',
      'SELECT * FROM visits v JOIN patients p ON p.id = v.patient_id',
      'SELECT j.* FROM (visits v JOIN patients p USING (id)) AS j',
      'SELECT * FROM visits v JOIN patients p USING (id)',
      'SELECT count(*) FROM (SELECT * FROM patients) s',
      'WITH c AS (SELECT * FROM patients) SELECT name FROM c',
    ]) {
      const error = refused(sql);
      expect(error.message).toContain('patients');
      expect(error.hint).toBe('name the columns of patients that may be named: id, tenant_id, name');
    }
    refused("UPDATE patients SET name = 'x' RETURNING *", 'execute');
  });

  it('refuses NATURAL joins, alias column lists and INSERT without a column list', () => {
    refused('SELECT id FROM visits NATURAL JOIN patients');
    refused('SELECT a FROM patients AS p(a, b)');
    refused('SELECT a FROM (visits JOIN patients USING (id)) AS j(a, b)');
    refused("INSERT INTO patients VALUES (1, 1, 'x')", 'execute');
    refused('INSERT INTO patients SELECT id, tenant_id, patient_id FROM visits', 'execute');
  });

  it('accepts its columns named, * over other items, and relations that are not partial', () => {
    accepted('SELECT id, name FROM patients');
    accepted('SELECT p.name, v.* FROM visits v JOIN patients p ON p.id = v.patient_id');
    accepted('SELECT * FROM (SELECT id, name FROM patients) s');
    accepted('SELECT * FROM visits NATURAL JOIN visits AS w');
    accepted('SELECT v.* FROM visits AS v(a, b)');
    accepted("INSERT INTO patients (name) VALUES ('x') RETURNING id, name", 'execute');
    accepted('INSERT INTO patients DEFAULT VALUES RETURNING id', 'execute');
    refused('SELECT ssn FROM patients');
  });

  it('is a boolean of the dialect shape', () => {
    const bad = {
      ...dialect,
      relations: { patients: { operations: ['select'], columns: ['id'], partial: 'yes' } },
    };
    expect(dialectProblems(bad)).toEqual(['relations.patients.partial must be true or false, not "yes"']);
  });
});
