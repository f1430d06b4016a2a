import type { Dialect } from '../types.js';

/** The expense service's dialect: seven relations, six functions, ordinary scalar casts. */
export const expenseDialect: Dialect = Object.freeze({
  relations: Object.freeze({
    ledger_entries: { operations: ['select', 'insert', 'update', 'delete'] },
    budget_lines: { operations: ['select', 'insert', 'update', 'delete'] },
    workspace_settings: { operations: ['select', 'insert', 'update', 'delete'] },
    account_metadata: { operations: ['select', 'insert', 'update', 'delete'] },
    accounts: { operations: ['select'] },
    fx_rates_raw: { operations: ['select'] },
    fx_rates_daily: { operations: ['select'] },
  }),
  functions: ['sum', 'count', 'min', 'max', 'avg', 'coalesce'],
  castTypes: [
    'text',
    'varchar',
    'char',
    'numeric',
    'decimal',
    'smallint',
    'integer',
    'bigint',
    'real',
    'double precision',
    'boolean',
    'date',
    'time',
    'timestamp',
    'timestamptz',
    'interval',
    'uuid',
  ],
}) as Dialect;
