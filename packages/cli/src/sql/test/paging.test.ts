import { describe, expect, it } from 'vitest';
import { pageSql, pagingProblem } from '../paging.js';

describe('pagingProblem', () => {
  it('accepts a query ending in its own ORDER BY', () => {
    expect(pagingProblem('SELECT * FROM t ORDER BY ts, id')).toBeUndefined();
    expect(pagingProblem('SELECT * FROM t ORDER BY id;  ')).toBeUndefined();
    expect(pagingProblem('SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY a')).toBeUndefined();
  });
  it('refuses an order that is only inside a subquery, a literal or before a set operation', () => {
    expect(pagingProblem('SELECT * FROM (SELECT * FROM t ORDER BY id) s')).toBe('no_order_by');
    expect(pagingProblem("SELECT 'ORDER BY x' AS s FROM t")).toBe('no_order_by');
    expect(pagingProblem('SELECT * FROM t ORDER BY id UNION SELECT * FROM u')).toBe('no_order_by');
  });
  it('refuses its own LIMIT, OFFSET or FETCH and several statements', () => {
    expect(pagingProblem('SELECT * FROM t ORDER BY id LIMIT 3')).toBe('has_limit');
    expect(pagingProblem('SELECT * FROM t ORDER BY id OFFSET 3')).toBe('has_limit');
    expect(pagingProblem("SELECT * FROM t WHERE note = 'limit' ORDER BY id")).toBeUndefined();
    expect(pagingProblem('SELECT 1 ORDER BY 1; SELECT 2 ORDER BY 1')).toBe('several_statements');
  });
  it('appends LIMIT and OFFSET after the trailing semicolon is removed', () => {
    expect(pageSql('SELECT * FROM t ORDER BY id; ', 100, 200)).toBe(
      'SELECT * FROM t ORDER BY id\nLIMIT 100 OFFSET 200',
    );
  });
});
