import type { Command } from 'commander';
import { CliError, ExitCode, usageError } from '../errors.js';
import { LEDGER_TARGET } from '../import/batches.js';
import { BUDGET_TARGET, validateBudget } from '../import/budget.js';
import {
  DATE_FORMATS,
  type DateFormat,
  type Delimiter,
  detectDateFormat,
  detectDelimiter,
  parseDelimiter,
} from '../import/dialect.js';
import { BUDGET_FIELD_SET, type BudgetRow, LEDGER_FIELD_SET, type LedgerRow } from '../import/fields.js';
import { findColumn, parseMapArgs, resolveMapping } from '../import/mapping.js';
import { CsvSyntaxError, parseCsv } from '../import/parse.js';
import { PRESET_NAMES, PRESETS, type Preset, presetNamed } from '../import/presets.js';
import { headerLineOf, readText } from '../import/read-file.js';
import { validateRecords } from '../import/validate.js';
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
  preset?: string;
  into: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

const shown = (d: string) => (d === '\t' ? 'tab' : `'${d}'`);

/** What to try when the file did not parse: the delimiter the header line suggests, the preamble option. */
function delimiterHint(text: string, skipLines: number, given: Delimiter | undefined): string {
  const line = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)[skipLines] ?? '';
  const detected = detectDelimiter(line);
  if (given && given !== detected)
    return `Nothing was sent. The header line looks ${shown(detected)}-separated: try --delimiter ${shown(detected)}.`;
  return `Nothing was sent. It was read with the delimiter ${shown(given ?? detected)}; give --delimiter (',' ';' or tab) if that is wrong, and --skip-lines <n> when lines above the header are not part of the table.`;
}

export function registerImport(program: Command, action: Action): void {
  program
    .command('import')
    .argument('<file.csv>', 'a CSV file with a header line')
    .option('--account <id>', 'account_id for rows whose file has none')
    .option('--map <column=field>', 'feed a field from a CSV column (repeatable)', collect, [])
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'send every batch as a dry run and report what would be inserted')
    .option('--preset <bank>', `the layout of a bank's export: ${PRESET_NAMES.join(', ')}`)
    .option('--into <table>', 'ledger_entries, or budget_lines for a budget', 'ledger_entries')
    .option('--delimiter <char>', 'the field delimiter: , ; or tab (detected from the header when absent)')
    .option('--skip-lines <n>', "lines to skip before the header (a bank's preamble)")
    .option('--encoding <name>', 'the file encoding: utf8 (default) or latin1')
    .option(
      '--date-format <format>',
      `how dates are written: ${DATE_FORMATS.join(', ')} (detected when absent)`,
    )
    .option('--decimal-comma', 'amounts use a decimal comma (-1.234,56)')
    .option('--currency <code>', 'the currency of rows when the file has no currency column')
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
Columns named like ledger_entries fields (ts, account_id, amount, currency, kind, category, counterparty,
note, event_id, external_id) are used as they are; map others with --map "Date=ts". Without a kind column
the kind follows the sign of the amount: negative is spend, positive is income. Rows get an external_id
(mapped, or derived from the row's content), so running the same import again adds nothing. The rows of one
event_id (the two legs of a transfer) always travel in the same batch, and are skipped together when the
workspace has the event already.

With --into budget_lines the fields are budget_month (2026-11 or 2026-11-01), direction (income or spend),
category, currency, planned_value (positive) and note; a line whose month, direction and category exist is
skipped.

Presets:
${PRESET_NAMES.map((n) => `  ${n.padEnd(11)} ${PRESETS[n].description}`).join('\n')}`,
    )
    .action(
      action(async (ctx, options: ImportOptions, [file]) => {
        const path = file!;
        const into = options.into.toLowerCase();
        if (into !== 'ledger_entries' && into !== 'budget_lines')
          throw usageError(`--into takes ledger_entries or budget_lines, not "${options.into}".`);
        const budget = into === 'budget_lines';
        if (budget) {
          const wrong = (['account', 'debit', 'credit', 'invertSign', 'preset'] as const).filter(
            (o) => options[o] !== undefined,
          );
          if (wrong.length)
            throw usageError(
              `--into budget_lines takes no ${wrong.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}.`,
              'Those options shape ledger entries; a budget file has budget_month, direction, category, currency and planned_value.',
            );
        }
        let preset: Preset | undefined;
        if (options.preset !== undefined) {
          preset = presetNamed(options.preset);
          if (!preset)
            throw usageError(
              `There is no preset "${options.preset}".`,
              `Presets: ${PRESET_NAMES.join(', ')}.`,
            );
        }
        const encoding = options.encoding?.toLowerCase().replace('utf-8', 'utf8');
        if (encoding !== undefined && !['utf8', 'latin1'].includes(encoding))
          throw usageError(`--encoding takes utf8 or latin1, not "${options.encoding}".`);
        if (
          options.dateFormat &&
          !(DATE_FORMATS as readonly string[]).includes(options.dateFormat.toUpperCase())
        )
          throw usageError(`--date-format takes ${DATE_FORMATS.join(', ')}, not "${options.dateFormat}".`);
        let skipLines = options.skipLines === undefined ? undefined : Number(options.skipLines);
        if (skipLines !== undefined && (!Number.isInteger(skipLines) || skipLines < 0))
          throw usageError('--skip-lines takes a whole number.');
        let delimiter: Delimiter | undefined;
        try {
          delimiter = options.delimiter === undefined ? preset?.delimiter : parseDelimiter(options.delimiter);
        } catch (error) {
          throw usageError((error as Error).message);
        }
        const read = await readText(path, encoding, preset?.latin1Fallback === true);
        const { text, digest } = read;
        if (read.encoding === 'latin1' && encoding === undefined && !ctx.json)
          ctx.note(`${path} is not UTF-8: read as Latin-1 (--encoding to say otherwise).`);
        if (skipLines === undefined && preset?.header) {
          skipLines = headerLineOf(text, preset.header);
          if (skipLines === undefined)
            throw usageError(
              `${path} does not look like a ${options.preset} export: no header line like ${preset.header.source.replace(/[\^"?\\]/g, '')}.`,
              'Check the file (is it the CSV download?), or give --skip-lines <n> and --map the columns yourself.',
            );
        }
        skipLines ??= 0;
        let csv: ReturnType<typeof parseCsv>;
        try {
          csv = parseCsv(text, { ...(delimiter ? { delimiter } : {}), skipLines });
        } catch (error) {
          if (!(error instanceof CsvSyntaxError)) throw error;
          throw new CliError(
            'invalid_csv',
            `${path}${error.line ? `:${error.line}` : ''}: ${error.message}`,
            ExitCode.failure,
            {
              hint: delimiterHint(text, skipLines, delimiter),
            },
          );
        }
        if (csv.header.length === 0) throw new CliError('invalid_csv', `${path} is empty.`, ExitCode.failure);
        const set = budget ? BUDGET_FIELD_SET : LEDGER_FIELD_SET;
        const maps = parseMapArgs(options.map, set);
        const column = (name: string, option: string) => {
          const index = findColumn(csv.header, name);
          if (index === -1)
            throw usageError(
              `${option} ${name}: the file has no column "${name}".`,
              `Columns: ${csv.header.join(', ')}.`,
            );
          return index;
        };
        const firstPresent = (names: readonly string[] | undefined) =>
          names?.find((n) => findColumn(csv.header, n) !== -1);
        if (preset) {
          const mapped = new Set(maps.values());
          for (const [field, names] of Object.entries(preset.columns)) {
            const name = firstPresent(names);
            if (name !== undefined && !mapped.has(field) && !maps.has(name)) maps.set(name, field);
          }
        }
        const debitName =
          options.debit ??
          (maps.size && [...maps.values()].includes('amount') ? undefined : firstPresent(preset?.debit));
        const creditName =
          options.credit ?? (debitName === undefined ? undefined : firstPresent(preset?.credit));
        if ((options.debit === undefined) !== (options.credit === undefined))
          throw usageError('--debit and --credit go together: give both columns.');
        const debit = debitName === undefined ? undefined : column(debitName, '--debit');
        const credit = creditName === undefined ? undefined : column(creditName, '--credit');
        const debitCredit = [debit, credit].filter((i): i is number => i !== undefined);
        if (debitCredit.length && [...maps.values()].includes('amount') && options.debit !== undefined)
          throw usageError(
            'An amount column is mapped and --debit/--credit are given: use one or the other.',
          );
        const currency = (options.currency ?? preset?.currency)?.trim().toUpperCase();
        const mapping = resolveMapping(csv.header, maps, {
          account: options.account,
          currency,
          debitCredit,
          set,
        });
        if (debitCredit.length) delete mapping.columns.amount;
        const keepWhen =
          preset?.keepWhen && findColumn(csv.header, preset.keepWhen.column) !== -1
            ? {
                ...preset.keepWhen,
                index: findColumn(csv.header, preset.keepWhen.column),
              }
            : undefined;
        if (keepWhen) mapping.ignored = mapping.ignored.filter((h) => h !== csv.header[keepWhen.index]);
        if (mapping.ignored.length && !ctx.json) ctx.note(`Ignoring columns: ${mapping.ignored.join(', ')}.`);

        let dateFormat = (options.dateFormat?.toUpperCase() as DateFormat | undefined) ?? preset?.dateFormat;
        if (dateFormat === undefined) {
          const dateColumn = mapping.columns[budget ? 'budget_month' : 'ts'];
          const found = detectDateFormat(
            csv.records.map((r) => (dateColumn === undefined ? '' : (r.values[dateColumn] ?? ''))),
          );
          if (found.kind === 'found') dateFormat = found.format;
          else if (found.kind === 'ambiguous')
            dateFormat = preset?.dayFirst
              ? 'DD/MM/YYYY'
              : await chooseDateFormat(ctx, found.formats, found.example);
          if (found.kind === 'found' && !ctx.json)
            ctx.note(`Dates read as ${found.format} (--date-format to say otherwise).`);
        }
        const decimalComma = options.decimalComma === true || preset?.decimalComma === true;
        const valueOptions = {
          ...(dateFormat ? { dateFormat } : {}),
          decimalComma,
          ...(currency ? { currency } : {}),
          ...(debit !== undefined ? { debit } : {}),
          ...(credit !== undefined ? { credit } : {}),
          invertSign: options.invertSign === true || preset?.invertSign === true,
          skipWithoutAmount: preset?.skipWithoutAmount === true,
          ...(keepWhen ? { keepWhen } : {}),
        };
        const validation = budget
          ? validateBudget(csv.header, csv.records, mapping, valueOptions)
          : validateRecords(csv.header, csv.records, mapping, valueOptions);
        const { problems } = validation;
        if (problems.length) {
          throw new CliError(
            'invalid_csv',
            `${path} has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent.`,
            ExitCode.failure,
            {
              hint: 'Fix the lines below (or map the columns with --map) and run the import again.',
              details: { problems },
            },
          );
        }
        if (validation.left.length && !ctx.json) {
          const lines = validation.left.map((l) => `line ${l.line} (${l.reason})`).join(', ');
          ctx.note(
            `Leaving out ${validation.left.length} row${validation.left.length === 1 ? '' : 's'} that move no money: ${lines}.`,
          );
        }
        const fingerprint = JSON.stringify({
          into,
          columns: mapping.columns,
          account: mapping.account ?? null,
          ...valueOptions,
          delimiter: csv.delimiter,
          skipLines,
        });
        if (budget)
          await send(ctx, path, options, validation.rows as BudgetRow[], BUDGET_TARGET, {
            digest,
            fingerprint,
          });
        else
          await send(ctx, path, options, validation.rows as LedgerRow[], LEDGER_TARGET, {
            digest,
            fingerprint,
          });
      }),
    );
}
