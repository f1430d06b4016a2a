import type { Command } from 'commander';
import type { Context } from '../context.js';
import { DATE_FORMATS } from '../import/dialect.js';
import { prepareImport } from '../import/prepare.js';
import { PRESET_NAMES, PRESETS } from '../import/presets.js';
import { readBytes } from '../import/read-file.js';
import type { Action } from './action.js';
import { chooseDateFormat } from './import-dates.js';
import { send } from './import-send.js';

interface ImportOptions {
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
  /** A preset's name, or false for --no-preset. */
  preset?: string | false;
  columns?: string;
  into: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerImport(program: Command, action: Action): void {
  program
    .command('import')
    .argument('<file.csv>', 'a CSV file with a header line')
    .option('--account <id>', 'account_id for rows whose file has none')
    .option('--map <column=field>', 'feed a field from a CSV column (repeatable)', collect, [])
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'send every batch as a dry run and report what would be inserted')
    .option(
      '--preset <bank>',
      `the layout of a bank's export (recognised from the file when absent): ${PRESET_NAMES.join(', ')}`,
    )
    .option('--no-preset', "recognise no bank's layout: name the columns with --map")
    .option(
      '--columns <names>',
      'a file without a header row: its columns in order, e.g. date,amount,-,-,description (- skips one)',
    )
    .option('--into <table>', 'ledger_entries, or budget_lines for a budget', 'ledger_entries')
    .option('--delimiter <char>', 'the field delimiter: , ; or tab (detected from the header when absent)')
    .option('--skip-lines <n>', 'lines to skip before the header (found by itself when absent)')
    .option('--encoding <name>', 'the file encoding: utf8 or latin1 (Windows-1252); detected when absent')
    .option(
      '--date-format <format>',
      `how dates are written: ${DATE_FORMATS.join(', ')} (detected when absent)`,
    )
    .option('--decimal-comma', 'amounts use a decimal comma (-1.234,56); detected when absent')
    .option(
      '--currency <code>',
      "the currency of rows when the file has no currency column (else the preset's, else the workspace's)",
    )
    .option(
      '--debit <column>',
      'a column of money out (made negative); use with --credit instead of an amount',
    )
    .option('--credit <column>', 'a column of money in (made positive)')
    .option(
      '--invert-sign',
      'the file shows money out as positive numbers (card statements): flip every sign',
    )
    .description(
      'Import ledger entries (or budget lines) from CSV: validate all rows, ask once, then send them in batches',
    )
    .addHelpText(
      'after',
      `
A file in a known bank's layout is recognised (header found below any preamble, delimiter, encoding, decimal
comma, date order) and imports with only --account; pending rows are left out and fees booked as entries of
their own. Otherwise columns named like ledger_entries fields (ts, account_id, amount, currency, kind,
category, counterparty, note, event_id, external_id), or by common bank names (Date, Amount, Betrag, ...), are
used; map others with --map "Date=ts". Without a kind column the kind follows the sign of the amount:
negative is spend, positive is income. Each row's external_id (unless mapped) comes from the file's raw row
(bank, account, date, amount, description, its occurrence in the file), never from --map, so running the same
import again, re-mapped or from an overlapping export, adds only new rows. One import is one entry of
\`expense history\`, undone with one \`expense revert <id prefix>\`. The rows of one
event_id (the two legs of a transfer) always travel in the same batch, and are skipped together when the
workspace has the event already.

With --into budget_lines the fields are budget_month (2026-11 or 2026-11-01), direction (income or spend),
category, currency, planned_value (positive) and note; a line whose month, direction and category exist is
skipped.

Presets:
${PRESET_NAMES.map((n) => `  ${n.padEnd(14)} ${PRESETS[n].description}`).join('\n')}`,
    )
    .action(
      action(async (ctx, options: ImportOptions, [file]) => {
        const path = file!;
        const { bytes, digest } = await readBytes(path);
        const prepared = await prepareImport(
          {
            fileName: path,
            bytes,
            into: options.into,
            account: options.account,
            map: options.map,
            preset: options.preset,
            delimiter: options.delimiter,
            skipLines: options.skipLines,
            encoding: options.encoding,
            dateFormat: options.dateFormat,
            decimalComma: options.decimalComma,
            currency: options.currency,
            debit: options.debit,
            credit: options.credit,
            invertSign: options.invertSign,
            columns: options.columns,
          },
          {
            chooseDateFormat: (formats, example) => chooseDateFormat(ctx, formats, example),
            workspaceCurrency: () => workspaceCurrency(ctx),
          },
        );
        if (!ctx.json) for (const note of prepared.notes) ctx.note(note);
        if (prepared.left.length && !ctx.json) {
          const lines = prepared.left.map((l) => `line ${l.line} (${l.reason})`).join(', ');
          ctx.note(
            `Leaving out ${prepared.left.length} row${prepared.left.length === 1 ? '' : 's'} that are not booked movements: ${lines}.`,
          );
        }
        const keys = { digest, fingerprint: prepared.fingerprint };
        if (prepared.into === 'budget_lines')
          await send(ctx, path, options, prepared.rows, prepared.target, keys);
        else await send(ctx, path, options, prepared.rows, prepared.target, keys);
      }),
    );
}

/** The workspace's reporting_currency (workspace_settings), for a file that names no currency. */
async function workspaceCurrency(ctx: Context): Promise<string> {
  const result = await (await ctx.api()).query('SELECT reporting_currency FROM workspace_settings');
  const value = result.data.statements[0]?.rows[0]?.reporting_currency;
  return typeof value === 'string' && value !== '' ? value : 'USD';
}
