import type { ReportKind } from '@expense/wire/reports';
import type { RowFormat } from '../../output/sql-result.js';

/** The CLI's names for the fixed reports the MCP `report` tool and the console run (packages/wire). */
export const REPORTS = {
  spending: 'spend_by_category',
  budget: 'budget_vs_actual',
  balances: 'balances',
  trend: 'monthly_trend',
} as const satisfies Record<string, ReportKind>;

export type ReportName = keyof typeof REPORTS;

export interface ReportOptions {
  month?: string;
  from?: string;
  to?: string;
  currency?: string;
  format: RowFormat;
  raw?: boolean;
  header: boolean;
  pager: boolean;
}
