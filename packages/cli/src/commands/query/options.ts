import type { RowFormat } from '../../output/sql-result.js';

export interface QueryOptions {
  file?: string;
  format: RowFormat;
  all?: boolean;
  header: boolean;
  crlf?: boolean;
  raw?: boolean;
  unaligned?: boolean;
  fieldSeparator: string;
  expanded?: boolean;
  numbers?: boolean;
  pager: boolean;
}
