import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { buildInsert, planBatches } from '../import/batches.js';
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
}

const collect = (value: string, previous: string[]) => [...previous, value];

async function readText(file: string): Promise<{ text: string; digest: string }> {
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
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { text, digest: createHash('sha256').update(bytes).digest('hex') };
  } catch {
    throw new CliError('invalid_csv', `${file} is not UTF-8 text.`, ExitCode.failure, {
      hint: 'Save or convert the file as UTF-8 (e.g. iconv -f latin1 -t utf-8).',
    });
  }
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
        const { text, digest } = await readText(path);
        let csv: ReturnType<typeof parseCsv>;
        try {
          csv = parseCsv(text);
        } catch (error) {
          if (!(error instanceof CsvSyntaxError)) throw error;
          throw new CliError(
            'invalid_csv',
            `${path}${error.line ? `:${error.line}` : ''}: ${error.message}`,
            ExitCode.failure,
            {
              hint: 'Nothing was sent.',
            },
          );
        }
        if (csv.header.length === 0) throw new CliError('invalid_csv', `${path} is empty.`, ExitCode.failure);
        const mapping = resolveMapping(csv.header, parseMapArgs(options.map), options.account);
        if (mapping.ignored.length && !ctx.json) ctx.note(`Ignoring columns: ${mapping.ignored.join(', ')}.`);
        const { rows, problems } = validateRecords(csv.header, csv.records, mapping);
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
        const fingerprint = JSON.stringify({ columns: mapping.columns, account: mapping.account ?? null });
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
