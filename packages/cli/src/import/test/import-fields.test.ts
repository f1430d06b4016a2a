// The fields an import may fill are the CLI's own lists (its order, literal types), not derived from the dialect at
// run time (that would load @expense/sql-guard's main entry into `expense import`): they are held to it here.

import { BUDGET_FIELD_SET, LEDGER_FIELD_SET } from '@expense/import';
import { expenseDialect } from '@expense/sql-guard';
import { describe, expect, it } from 'vitest';

/** What the database fills: the row's id, the request's workspace, the insert and update stamps. */
const FILLED_BY_THE_SERVICE = new Set(['entry_id', 'line_id', 'workspace_id', 'inserted_at', 'updated_at']);

describe('the fields an import may fill', () => {
  for (const set of [LEDGER_FIELD_SET, BUDGET_FIELD_SET]) {
    it(`are the columns of ${set.table} the service does not fill`, () => {
      const columns = expenseDialect.relations[set.table]?.columns ?? [];
      expect([...set.fields].sort()).toEqual(columns.filter((c) => !FILLED_BY_THE_SERVICE.has(c)).sort());
      for (const field of set.required) expect(set.fields).toContain(field);
    });
  }
});
