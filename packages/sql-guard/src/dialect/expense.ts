import type { Dialect } from '../types.js';

/** Columns of the writable relations that the database fills on insert and update. */
const stamped = ['inserted_at', 'updated_at'];

/**
 * The expense service's dialect: seven relations with their columns in table order (migrations 0002 and 0003:
 * `*` expands so, and the server verifies it against its database at start), six functions, ordinary scalar casts.
 * `workspace_id` is filled by the database with the request's workspace.
 */
export const expenseDialect: Dialect = Object.freeze({
  relations: Object.freeze({
    ledger_entries: {
      operations: ['select', 'insert', 'update', 'delete'],
      columns: [
        'entry_id',
        'workspace_id',
        'event_id',
        'ts',
        'account_id',
        'amount',
        'currency',
        'kind',
        'category',
        'counterparty',
        'note',
        'external_id',
        ...stamped,
      ],
    },
    budget_lines: {
      operations: ['select', 'insert', 'update', 'delete'],
      columns: [
        'line_id',
        'workspace_id',
        'budget_month',
        'direction',
        'category',
        'currency',
        'planned_value',
        'note',
        ...stamped,
      ],
    },
    workspace_settings: {
      operations: ['select', 'insert', 'update', 'delete'],
      columns: ['workspace_id', 'reporting_currency', 'first_day_of_week', 'timezone', 'updated_at'],
    },
    account_metadata: {
      operations: ['select', 'insert', 'update', 'delete'],
      columns: [
        'workspace_id',
        'account_id',
        'display_name',
        'account_type',
        'liquidity',
        'is_archived',
        'note',
        ...stamped,
      ],
    },
    accounts: {
      operations: ['select'],
      columns: [
        'account_id',
        'currency',
        'balance',
        'entry_count',
        'first_ts',
        'last_ts',
        'display_name',
        'account_type',
        'liquidity',
        'is_archived',
        'note',
      ],
    },
    fx_rates_raw: {
      operations: ['select'],
      columns: ['base_currency', 'quote_currency', 'rate_date', 'rate', 'source', 'inserted_at'],
    },
    fx_rates_daily: {
      operations: ['select'],
      columns: ['base_currency', 'quote_currency', 'calendar_date', 'rate', 'source_rate_date'],
    },
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
