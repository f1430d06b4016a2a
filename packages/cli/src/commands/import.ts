import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { buildInsert, planBatches } from '../import/batches.js';
import {
  DATE_FORMATS,
  type DateFormat,
  type Delimiter,
  detectDelimiter,
  parseDelimiter,
} from '../import/dialect.js';
import { parseMapArgs, resolveMapping } from '../import/mapping.js';
import { CsvSyntaxError, parseCsv } from '../import/parse.js';
import { BatchFailed, type ImportSummary, runBatches } from '../import/run.js';
import { validateRecords } from '../import/validate.js';
import { ProgressBar } from '../output/progress.js';
import type { Action } from './action.js';
import { approve, callSql, showSql, workspaceLabel } from './shared.js';

interface ImportOptions {
  account?: string;
  map: string[];
  yes?: boolean;
  dryRun?: boolean;
  delimiter?: string;
  skipLines?: string;
  encoding: string;
  dateFormat?: string;
  decimalComma?: boolean;
  currency?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

async function readText(file: string, encoding: string): Promise<{ text: string; digest: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliError(
      'file_not_readable',
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`,
      ExitCode.failure,
    );
  }
  try {
    const text = new TextDecoder(encoding === 'latin1' ? 'latin1' : 'utf-8', { fatal: true }).decode(bytes);
    return { text, digest: createHash('sha256').update(bytes).digest('hex') };
  } catch {
    throw new CliError('invalid_csv', `${file} is not UTF-8 text.`, ExitCode.failure, {
      hint: 'Read it as Latin-1 with --encoding latin1 (or convert it: iconv -f latin1 -t utf-8).',
    });
  }
}

const shown = (d: string) => (d === '\t' ? 'tab' : `'${d}'`);

/** What to try when the file did not parse: the delimiter the header line suggests, the preamble option. */
function delimiterHint(text: string, skipLines: number, given: Delimiter | undefined): string {
  const line = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)[skipLines] ?? '';
  const detected = detectDelimiter(line);
  if (given && given !== detected)
    return `Nothing was sent. The header line looks ${shown(detected)}-separated: try --delimiter ${shown(detected)}.`;
  return `Nothing was sent. It was read with the delimiter ${shown(given ?? detected)}; give --delimiter (',' ';' or tab) if that is wrong, and --skip-lines <n> when lines above the header are not part of the table.`;
}

function summaryLine(s: ImportSummary): string {
  const verb = s.dryRun ? 'would be inserted' : 'inserted';
  const parts = [`${s.inserted} ${verb}`, `${s.skipped} skipped as already present`, `${s.failed} failed`];
  if (s.notSent) parts.push(`${s.notSent} not sent`);
  return `${s.dryRun ? 'Dry run (nothing was changed): ' : ''}${parts.join(', ')} (of ${s.rows} row${s.rows === 1 ? '' : 's'}).`;
}

function printSummary(ctx: Context, summary: ImportSummary): void {
  if (ctx.json) ctx.printJson(summary);
  else ctx.note(`${summary.failed ? ctx.err.red('✗') : ctx.err.green('✓')} ${summaryLine(summary)}`);
}

export function registerImport(program: Command, action: Action): void {
  program
    .command('import')
    .argument('<file.csv>', 'a CSV file with a header line')
    .option('--account <id>', 'account_id for rows whose file has none')
    .option('--map <column=field>', 'feed a ledger_entries field from a CSV column (repeatable)', collect, [])
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'send every batch as a dry run and report what would be inserted')
    .option('--delimiter <char>', 'the field delimiter: , ; or tab (detected from the header when absent)')
    .option('--skip-lines <n>', "lines to skip before the header (a bank's preamble)")
    .option('--encoding <name>', 'the file encoding: utf8 or latin1', 'utf8')
    .option('--date-format <format>', `how dates are written: ${DATE_FORMATS.join(', ')}`)
    .option('--decimal-comma', 'amounts use a decimal comma (-1.234,56)')
    .option('--currency <code>', 'the currency of rows when the file has no currency column')
    .description('Import ledger entries from CSV: validate all rows, ask once, then send them in batches')
    .addHelpText(
      'after',
      `
Columns named like ledger_entries fields (ts, account_id, amount, currency, kind, category, counterparty,
note, event_id, external_id) are used as they are; map others with --map "Date=ts". Without a kind column
the kind follows the sign of the amount: negative is spend, positive is income. Rows get an external_id
(mapped, or derived from the row's content), so running the same import again adds nothing.`,
    )
    .action(
      action(async (ctx, options: ImportOptions, [file]) => {
        const path = file!;
        if (!['utf8', 'utf-8', 'latin1'].includes(options.encoding.toLowerCase()))
          throw usageError(`--encoding takes utf8 or latin1, not "${options.encoding}".`);
        if (
          options.dateFormat &&
          !(DATE_FORMATS as readonly string[]).includes(options.dateFormat.toUpperCase())
        )
          throw usageError(`--date-format takes ${DATE_FORMATS.join(', ')}, not "${options.dateFormat}".`);
        const skipLines = options.skipLines === undefined ? 0 : Number(options.skipLines);
        if (!Number.isInteger(skipLines) || skipLines < 0)
          throw usageError('--skip-lines takes a whole number.');
        let delimiter: Delimiter | undefined;
        try {
          delimiter = options.delimiter === undefined ? undefined : parseDelimiter(options.delimiter);
        } catch (error) {
          throw usageError((error as Error).message);
        }
        const { text, digest } = await readText(path, options.encoding.toLowerCase());
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
        const currency = options.currency?.trim().toUpperCase();
        const mapping = resolveMapping(csv.header, parseMapArgs(options.map), options.account, currency);
        if (mapping.ignored.length && !ctx.json) ctx.note(`Ignoring columns: ${mapping.ignored.join(', ')}.`);
        const valueOptions = {
          ...(options.dateFormat ? { dateFormat: options.dateFormat.toUpperCase() as DateFormat } : {}),
          decimalComma: options.decimalComma === true,
          ...(currency ? { currency } : {}),
        };
        const { rows, problems } = validateRecords(csv.header, csv.records, mapping, valueOptions);
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
        if (rows.length === 0) {
          if (ctx.json)
            ctx.printJson({
              rows: 0,
              inserted: 0,
              skipped: 0,
              failed: 0,
              notSent: 0,
              dryRun: Boolean(options.dryRun),
            });
          else ctx.note(`${path} has no rows to import.`);
          return;
        }

        await ctx.key(); // signed in at all? Asked before the approval question, not after it.
        const batches = planBatches(rows);
        const where = await workspaceLabel(ctx);
        if (!ctx.json) {
          const rest = batches.length - 1;
          ctx.note(
            `${options.dryRun ? 'Dry run: ' : ''}${rows.length} row${rows.length === 1 ? '' : 's'} from ${path} into ledger_entries of ${where}: ` +
              `a probe of ${batches[0]!.rows.length} row${batches[0]!.rows.length === 1 ? '' : 's'}` +
              (rest ? `, then ${rest} batch${rest === 1 ? '' : 'es'} of up to 100 rows.` : '.') +
              ' Rows whose external_id is already there are skipped.',
          );
          showSql(ctx, 'The probe (every batch has the same shape):', buildInsert(batches[0]!.rows));
        }
        if (!options.dryRun)
          await approve(ctx, `Import ${rows.length} row${rows.length === 1 ? '' : 's'}?`, options.yes);

        const progress = new ProgressBar(
          ctx.io.stderr,
          rows.length,
          options.dryRun ? 'checking' : 'importing',
        );
        const fingerprint = JSON.stringify({
          columns: mapping.columns,
          account: mapping.account ?? null,
          ...valueOptions,
          delimiter: csv.delimiter,
          skipLines,
        });
        try {
          const summary = await runBatches(
            batches,
            { fileDigest: digest, fingerprint },
            (sql, o) => callSql(ctx, '/sql/execute', sql, o),
            { dryRun: Boolean(options.dryRun), onProgress: (done) => !ctx.json && progress.update(done) },
          );
          progress.done();
          printSummary(ctx, summary);
        } catch (error) {
          progress.done();
          if (!(error instanceof BatchFailed)) throw error;
          const cause = error.cause instanceof CliError ? error.cause : undefined;
          const lines = `lines ${error.batch.rows[0]!.line}–${error.batch.rows.at(-1)!.line}`;
          if (!ctx.json) ctx.note(`${ctx.err.red('✗')} ${summaryLine(error.summary)}`);
          throw new CliError(
            cause?.code ?? 'import_failed',
            `${error.batch.probe ? 'The probe' : `Batch ${error.batch.index}`} (${lines}) failed: ${
              cause?.message ?? String(error.cause)
            }`,
            cause?.exitCode ?? ExitCode.failure,
            {
              hint:
                cause?.hint ??
                'Rows before this batch are in; running the same import again skips them and continues.',
              details: { ...(cause?.details ?? {}), summary: error.summary },
            },
          );
        }
      }),
    );
}
