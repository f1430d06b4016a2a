import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { type FxConfig, FxConfigSchema, fxConfigFromEnv } from '../../platform/config/fx.js';
import type { Database } from '../../platform/storage/database.js';
import type { RebuildResult } from './daily.js';
import { type ImportSummary, importFxText } from './import.js';
import type { FxLogger } from './logger.js';
import { syncFx } from './sync.js';

export interface FxCommandDeps {
  /** Opens the configured database with its migrations applied; gets the command's options. Closed after. */
  openDatabase(options: Record<string, unknown>): Promise<Database>;
  /** Adds the server's own flags (--database-url, --data-dir, ...) to each fx command. */
  addOptions?: (command: Command) => Command;
  /** Default: the EXPENSE_FX_* variables. */
  config?: () => FxConfig;
  /** Where sync logs its retries and warnings; default: JSON lines on stderr. */
  logger?: FxLogger;
  /** Default: process.stdout / process.stderr. */
  out?: (text: string) => void;
  err?: (text: string) => void;
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a positive whole number of days');
  return n;
};

const stderrLogger: FxLogger = {
  info: () => undefined,
  warn: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg, ...obj })}\n`),
};

function describeDaily(d: RebuildResult): string {
  if (d.mode === 'empty') return 'daily table: empty (no rates)';
  return (
    `daily table: ${d.rowsTotal} rows, ${d.windowStart}..${d.windowEnd}, ${d.currencies.length} currencies ` +
    `(${d.mode}: ${d.daysRebuilt} days recomputed, ${d.rowsInserted} rows written, ${d.rowsDeleted} removed)`
  );
}

function describeImport(s: ImportSummary): string {
  return (
    `${s.rates} rates on ${s.days} market days (${s.firstDate}..${s.lastDate}): ${s.inserted} new, ` +
    `${s.updated} corrected, ${s.unchanged} unchanged\n${describeDaily(s.daily)}\n`
  );
}

/**
 * Adds `fx import <file>` and `fx sync` to the expense-server program. Exit code 1 on a refused file or a
 * failed download, with the reason on stderr; results on stdout (`--json` for the summary object).
 */
export function registerFxCommands(program: Command, deps: FxCommandDeps): Command {
  const out = deps.out ?? ((t: string) => process.stdout.write(t));
  const err = deps.err ?? ((t: string) => process.stderr.write(t));
  const config = () => (deps.config ?? fxConfigFromEnv)();
  const withOptions = (c: Command) => (deps.addOptions ? deps.addOptions(c) : c);
  const withDb = async <T>(options: Record<string, unknown>, fn: (db: Database) => Promise<T>) => {
    const db = await deps.openDatabase(options);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };

  /** Unexpected failures (configuration, database) become one line on stderr and exit code 1, no stack. */
  const guarded =
    <A extends unknown[]>(action: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      try {
        await action(...args);
      } catch (error) {
        const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
        const message = issues
          ? issues
              .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
              .join('; ')
          : (error as Error).message;
        err(`expense-server: fx failed: ${message}\n`);
        process.exitCode = 1;
      }
    };

  const fx = program.command('fx').description('the FX worker: ECB reference rates and the daily table');

  withOptions(
    fx
      .command('import')
      .description(
        'import ECB rates from a local file (eurofxref-hist.csv, eurofxref-daily.xml, eurofxref-hist-90d.xml)',
      )
      .argument('<file>', 'the file to import')
      .option('--days <n>', 'days kept before the latest rate (default EXPENSE_FX_DAYS or 730)', positiveInt)
      .option('--json', 'print the summary as JSON'),
  ).action(
    guarded(async (file: string, options: Record<string, unknown>) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        err(`expense-server: cannot read ${file}: ${(error as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      const windowDays = (options.days as number | undefined) ?? config().fxDays;
      const result = await withDb(options, (db) => importFxText(db, text, { windowDays }));
      if (!result.ok) {
        err(`expense-server: ${file}:${result.error.line}: ${result.error.reason} (nothing was imported)\n`);
        process.exitCode = 1;
        return;
      }
      out(options.json ? `${JSON.stringify(result.value)}\n` : describeImport(result.value));
    }),
  );

  withOptions(
    fx
      .command('sync')
      .description('download the ECB rates (EXPENSE_FX_SOURCE_URL) and import them')
      .option('--source-url <url>', "folder laid out like the ECB's, or one .xml/.csv/.zip file")
      .option('--days <n>', 'days kept before the latest rate (default EXPENSE_FX_DAYS or 730)', positiveInt)
      .option('--json', 'print the result as JSON'),
  ).action(
    guarded(async (options: Record<string, unknown>) => {
      const cfg = config();
      const result = await withDb(options, (db) =>
        syncFx(db, deps.logger ?? stderrLogger, {
          sourceUrl: options.sourceUrl
            ? FxConfigSchema.shape.fxSourceUrl.parse(options.sourceUrl)
            : cfg.fxSourceUrl,
          windowDays: (options.days as number | undefined) ?? cfg.fxDays,
        }),
      );
      if (options.json) out(`${JSON.stringify(result)}\n`);
      else if (result.imported) out(`${result.url}\n${describeImport(result.imported)}`);
      else if (result.daily) out(`${describeDaily(result.daily)}\n`);
      if (!result.ok) {
        err(`expense-server: fx sync failed for ${result.url}: ${result.reason} (stored rates kept)\n`);
        process.exitCode = 1;
      }
    }),
  );
  return fx;
}
