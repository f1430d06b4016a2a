export interface ImportOptions {
  account?: string;
  map: string[];
  yes?: boolean;
  dryRun?: boolean;
  delimiter?: string;
  skipLines?: string;
  encoding?: string;
  dateFormat?: string;
  decimalComma?: boolean;
  currency?: string;
  debit?: string;
  credit?: string;
  invertSign?: boolean;
  /** A card file whose sign cannot be told: its charges are positive (`--charges-positive`) or negative. */
  chargesPositive?: boolean;
  chargesNegative?: boolean;
  /** A preset's name, or false for --no-preset. */
  preset?: string | false;
  columns?: string;
  into: string;
}
