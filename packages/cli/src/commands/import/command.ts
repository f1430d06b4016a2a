import {
  DATE_FORMATS,
  encodingNamed,
  PRESET_NAMES,
  PRESETS,
  parseDelimiter,
  presetNamed,
} from '@expense/import';
import { type Command, Option } from 'commander';
import { type Action, lazy } from '../action.js';
import { choices } from '../choices.js';

const collect = (value: string, previous: string[]) => [...previous, value];
/** The delimiter as given (`tab`, `\t`, `;`, `pipe`), when it is one the import reads. */
const knownDelimiter = (given: string) => {
  try {
    parseDelimiter(given);
    return given;
  } catch {
    return undefined;
  }
};

export function registerImport(program: Command, action: Action): void {
  program
    .command('import')
    .argument('<file.csv>', 'a bank export: CSV of any layout, OFX/QFX, QIF, CAMT.052/053/054 or MT940')
    .option(
      '--account <id>',
      'account_id of the rows (else the account the file names, else asked on a terminal)',
    )
    .option('--map <column=field>', 'feed a field from a CSV column (repeatable)', collect, [])
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'send every batch as a dry run and report what would be inserted')
    .addOption(
      choices(
        new Option('--preset <bank>', "the layout of a bank's export (recognised from the file when absent)"),
        PRESET_NAMES,
        (given) => presetNamed(given)?.name,
      ),
    )
    .option('--no-preset', "recognise no bank's layout: name the columns with --map")
    .option(
      '--columns <names>',
      'a file without a header row: its columns in order, e.g. date,amount,-,-,description (- skips one)',
    )
    .addOption(
      choices(new Option('--into <table>', 'ledger_entries, or budget_lines for a budget'), [
        'ledger_entries',
        'budget_lines',
      ]).default('ledger_entries'),
    )
    .addOption(
      choices(
        new Option(
          '--delimiter <char>',
          'the field delimiter, | also written pipe (detected from the header when absent)',
        ),
        [',', ';', '|', 'tab'],
        knownDelimiter,
      ),
    )
    .option('--skip-lines <n>', 'lines to skip before the header (found by itself when absent)')
    .addOption(
      choices(
        new Option(
          '--encoding <name>',
          'the file encoding, any WHATWG name, latin1 meaning Windows-1252 (detected when absent)',
        ),
        ['utf8', 'latin1', 'windows-1250', 'windows-1251', 'shift_jis', 'gbk', 'euc-kr', 'utf-16le'],
        (given) => (encodingNamed(given) ? given : undefined),
      ),
    )
    .addOption(
      choices(
        new Option('--date-format <format>', 'how dates are written (detected when absent)'),
        DATE_FORMATS,
      ),
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
    .addOption(
      new Option(
        '--charges-positive',
        'a card file whose sign cannot be told from it: its charges (spending) are positive numbers',
      ).conflicts('chargesNegative'),
    )
    .option(
      '--charges-negative',
      'a card file whose sign cannot be told from it: its charges are negative numbers',
    )
    .description(
      'Import ledger entries (or budget lines) from CSV: validate all rows, ask once, then send them in batches',
    )
    .addHelpText(
      'after',
      `
Any bank's export imports with no option: OFX/QFX, QIF, CAMT.052/053/054 and MT940 statements (reconciled
against their balances), and CSV of any layout, read from its content (the table below any preamble, delimiter,
encoding, decimal comma, date order, the columns by their names in the bank's language or by their values, the
signs proved by a running balance, debit/credit columns or the card convention; --charges-positive or
--charges-negative when they cannot be). Pending, declined and reverted rows are left out; the account is the
one the file names (else asked on a terminal, else --account). Columns named like ledger_entries fields (ts,
account_id, amount, currency, kind, category, counterparty, note, event_id, external_id) are used as they are;
map others with --map "Date=ts". Without a kind column the kind follows the sign of the amount:
negative is spend, positive is income. Each row's external_id (unless mapped) comes from the file's raw row
(bank, account, date, amount, description, its occurrence in the file), never from --map, so running the same
import again, re-mapped or from an overlapping export, adds only new rows. One import is one entry of
import type { ImportOptions } from './options.js';
\`expense history\`, undone with one \`expense revert <id prefix>\`. The rows of one
event_id (the two legs of a transfer) always travel in the same batch, and are skipped together when the
workspace has the event already.

With --into budget_lines the fields are budget_month (2026-11 or 2026-11-01), direction (income or spend),
category, currency, planned_value (positive) and note; a line whose month, direction and category exist is
skipped.

Presets:
${PRESET_NAMES.map((n) => `  ${n.padEnd(14)} ${PRESETS[n].description}`).join('\n')}`,
    )
    .action(action(lazy(async () => (await import('./run.js')).importFile)));
}
