import { accountInColumn, ibanInLines, numberInLines } from './csv/account.js';
import { nameColumns } from './csv/columns.js';
import { type Decoded, decodeBytes, type Encoding, encodingNamed, encodingTitle } from './csv/decode.js';
import {
  DATE_FORMATS,
  type DateFormat,
  type Delimiter,
  detectDateFormat,
  detectDelimiter,
  parseDelimiter,
} from './csv/dialect.js';
import { signOfTable, type Understood, understand } from './csv/generic.js';
import { detectDecimalComma } from './csv/looks.js';
import { findColumn, normalise, parseMapArgs, resolveMapping } from './csv/mapping.js';
import { CsvSyntaxError } from './csv/parse.js';
import { partiesOf } from './csv/parties.js';
import { PRESET_NAMES, type Preset, presetNamed } from './csv/presets.js';
import { type NamedPreset, NotThatLayout, type Recognition, recognise } from './csv/recognise.js';
import { assignRoles } from './csv/roles.js';
import { ExitCode, ImportError, usageError } from './errors.js';
import { type ImportNote, noteWords, said, settable } from './notes.js';
import type { ImportHooks, ImportRequest, PreparedImport } from './request.js';
import { BUDGET_TARGET, validateBudget } from './rows/budget.js';
import { BUDGET_FIELD_SET, type BudgetRow, LEDGER_FIELD_SET, type LedgerRow } from './rows/fields.js';
import { type RowFilterAt, type Validation, validateRecords } from './rows/validate.js';
import { LEDGER_TARGET } from './send/batches.js';
import { formatOf } from './sniff/format.js';
import { refuseBytes, refuseText } from './sniff/refuse.js';
import { prepareStatement } from './statements/prepare.js';
import { keepTypeWords, typeColumns } from './transfers/type-words.js';

export type { ImportHooks, ImportRequest, PreparedImport } from './request.js';

/**
 * From a file's bytes and the options to the rows an import sends (pure: no file or network I/O, so that a
 * browser page can preview with it): encoding, the table and the bank recognised, the columns named, every row
 * validated. What needs the user or the service comes in through `hooks`. Wrong usage and bad data throw
 * ImportError with a hint; `notes` are what to say on stderr.
 */

/** Column names no bank writes: a file that has one is written for the ledger and read by its field names. */
const LEDGER_ONLY = new Set(['ts', 'account_id', 'kind', 'event_id', 'external_id']);

const shown = (d: string) => (d === '\t' ? 'tab' : `'${d}'`);

/** `--columns` names: ledger fields, and date/description/skip as people say them. */
const COLUMN_WORDS: Record<string, string> = {
  date: 'ts',
  description: 'counterparty',
  payee: 'counterparty',
  memo: 'note',
  '-': '',
  skip: '',
  _: '',
};

function headerlessNames(columns: string): { names: string[]; maps: [string, string][] } {
  const names: string[] = [];
  const maps: [string, string][] = [];
  columns.split(',').forEach((raw, i) => {
    const word = raw.trim().toLowerCase();
    const field = COLUMN_WORDS[word] ?? word;
    const name = field === '' ? `column ${i + 1}` : field;
    names.push(name);
    if (field !== '' && !(LEDGER_FIELD_SET.fields as readonly string[]).includes(field))
      throw usageError(
        `--columns ${columns}: "${raw.trim()}" is not a field.`,
        `Name each column: ${LEDGER_FIELD_SET.fields.join(', ')}, date, description, or - to skip it.`,
      );
    if (field !== '') maps.push([name, field]);
  });
  return { names, maps };
}

export async function prepareImport(request: ImportRequest, hooks: ImportHooks): Promise<PreparedImport> {
  const notes: ImportNote[] = [];
  const path = request.fileName;
  const into = (request.into ?? 'ledger_entries').toLowerCase();
  if (into !== 'ledger_entries' && into !== 'budget_lines')
    throw usageError(`--into takes ledger_entries or budget_lines, not "${request.into}".`);
  const budget = into === 'budget_lines';
  if (budget) {
    const wrong = (['account', 'debit', 'credit', 'invertSign', 'preset', 'columns'] as const).filter(
      (o) => request[o] !== undefined,
    );
    if (wrong.length)
      throw usageError(
        `--into budget_lines takes no ${wrong.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}.`,
        'Those options shape ledger entries; a budget file has budget_month, direction, category, currency and planned_value.',
      );
  }
  let given: NamedPreset | null | undefined = budget || request.preset === false ? null : undefined;
  if (typeof request.preset === 'string') {
    given = presetNamed(request.preset);
    if (!given)
      throw usageError(`There is no preset "${request.preset}".`, `Presets: ${PRESET_NAMES.join(', ')}.`);
  }
  let encoding: Encoding | undefined;
  if (request.encoding !== undefined) {
    encoding = encodingNamed(request.encoding);
    if (!encoding)
      throw usageError(
        `--encoding takes an encoding's name, not "${request.encoding}".`,
        'For example utf8, latin1 (Windows-1252), windows-1250, windows-1251, shift_jis, gbk or euc-kr; leave it out to have the encoding detected.',
      );
  }
  const forcedDate = request.dateFormat?.toUpperCase();
  if (forcedDate && !(DATE_FORMATS as readonly string[]).includes(forcedDate))
    throw usageError(`--date-format takes ${DATE_FORMATS.join(', ')}, not "${request.dateFormat}".`);
  const skipLines = request.skipLines === undefined ? undefined : Number(request.skipLines);
  if (skipLines !== undefined && (!Number.isInteger(skipLines) || skipLines < 0))
    throw usageError('--skip-lines takes a whole number.');
  let delimiter: Delimiter | undefined;
  try {
    delimiter = request.delimiter === undefined ? undefined : parseDelimiter(request.delimiter);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const headerless = request.columns === undefined ? undefined : headerlessNames(request.columns);

  refuseBytes(request.bytes, path);
  let decoded: Decoded;
  try {
    decoded = decodeBytes(request.bytes, encoding);
  } catch {
    throw new ImportError('invalid_csv', `${path} is not UTF-8 text.`, ExitCode.failure, {
      hint: 'Leave --encoding out to have its encoding detected, or name it (e.g. --encoding latin1, --encoding windows-1250).',
    });
  }
  const { text } = decoded;
  if (encoding === undefined && decoded.encoding.startsWith('utf-16'))
    notes.push(said(`${path} is ${encodingTitle(decoded.encoding)}.`));
  else if (encoding === undefined && decoded.encoding !== 'utf8')
    notes.push(settable(`${path} is not UTF-8: read as ${encodingTitle(decoded.encoding)}`, 'encoding'));
  refuseText(text, path);
  const format = formatOf(text);
  if (format !== 'csv') {
    if (budget)
      throw usageError(`${path} is a bank statement (${format}); --into budget_lines takes a CSV file.`);
    return prepareStatement(format, text, request, hooks, notes);
  }

  let found: Recognition;
  try {
    found = recognise(text, {
      delimiter,
      skipLines,
      preset: given,
      ...(headerless ? { columns: headerless.names } : {}),
    });
  } catch (error) {
    if (error instanceof NotThatLayout)
      throw usageError(
        `${path} does not look like a ${error.preset.name} export: no header line with ${(error.preset.preset.signatures?.[0] ?? []).join(', ')}.`,
        'Check the file (is it the CSV download?), or leave --preset out to have the layout recognised, or give --skip-lines <n> and --map the columns yourself.',
        { variant: 'import_layout' },
      );
    if (!(error instanceof CsvSyntaxError)) throw error;
    const detected = detectDelimiter(text.split(/\r\n|\r|\n/, 1)[0] ?? '');
    throw new ImportError(
      'invalid_csv',
      `${path}${error.line ? `:${error.line}` : ''}: ${error.message}`,
      ExitCode.failure,
      {
        hint:
          delimiter && delimiter !== detected
            ? `Nothing was sent. The header line looks ${shown(detected)}-separated: try --delimiter ${shown(detected)}.`
            : `Nothing was sent. It was read with the delimiter ${shown(delimiter ?? detected)}; give --delimiter (',' ';' or tab) if that is wrong, and --skip-lines <n> when lines above the header are not part of the table.`,
        situation: { variant: 'csv_syntax' },
      },
    );
  }
  const { table } = found;
  const bank = found.bank;
  const preset: Preset | undefined = bank?.preset;
  if (found.recognised && bank) notes.push(said(`Recognised: ${bank.preset.title} (preset ${bank.name}).`));
  const preamble =
    table.headerLine === undefined
      ? text.slice(0, 4000).split(/\r\n|\r|\n/, (table.records[0]?.line ?? 1) - 1)
      : text.split(/\r\n|\r|\n/, table.headerLine - 1);
  let understood: Understood | undefined;
  if (table.headerless && table.header.length === 0 && !preset && !budget && given !== null) {
    understood = understand([], table.records, preamble.join('\n'));
    if (understood) {
      table.header = understood.header;
      notes.push(said(`${path} has no header row: its columns read from their values.`));
    }
  }
  if (table.headerless && table.header.length === 0) {
    const width = table.records[0]?.values.length ?? 0;
    throw usageError(
      `${path} has no header row: its first line is a transaction.`,
      `Name its ${width} columns in order, e.g. --columns date,amount${',-'.repeat(Math.max(0, width - 3))},description (a field, date, description, or - to skip), or give its bank's --preset.`,
      { variant: 'import_layout' },
    );
  }
  if (table.header.length === 0) throw new ImportError('invalid_csv', `${path} is empty.`, ExitCode.failure);
  const { header, records } = table;
  const set = budget ? BUDGET_FIELD_SET : LEDGER_FIELD_SET;
  const maps = parseMapArgs(request.map ?? [], set);
  for (const [name, field] of headerless?.maps ?? [])
    if (![...maps.values()].includes(field)) maps.set(name, field);

  const column = (name: string, option: string) => {
    const index = findColumn(header, name);
    if (index === -1)
      throw usageError(
        `${option} ${name}: the file has no column "${name}".`,
        `Columns: ${header.join(', ')}.`,
      );
    return index;
  };
  const firstPresent = (names: readonly string[] | undefined) =>
    names?.find((n) => findColumn(header, n) !== -1);
  /** The columns the bank (or the automatic naming) gives each field: the duplicate key is taken from these. */
  const own = new Map<string, string>();
  let ownDebit: string | undefined;
  let ownCredit: string | undefined;
  let generic: NamedPreset | undefined;
  if (preset) {
    for (const [field, names] of Object.entries(preset.columns)) {
      const name = firstPresent(names);
      if (name !== undefined) own.set(name, field);
    }
    ownDebit = firstPresent(preset.debit);
    ownCredit = ownDebit === undefined ? undefined : firstPresent(preset.credit);
  } else if (!budget && !headerless && given !== null && understood) {
    for (const [name, field] of understood.maps) own.set(name, field);
    ownDebit = understood.debit;
    ownCredit = understood.credit;
    generic = presetNamed(table.delimiter === ';' || understood.decimalComma ? 'generic-eu' : 'generic-us')!;
    notes.push(
      said(
        `Recognised: no bank's layout; ${generic.preset.title} (preset ${generic.name}), its columns read from their values: ${shownColumns(own, ownDebit, ownCredit, understood, header)}.`,
      ),
    );
  } else if (!budget && !headerless && given !== null) {
    // A file whose columns are named after the ledger's fields is read by those names, as it was written.
    const fieldNamed = header.some((h) => LEDGER_ONLY.has(normalise(h)));
    understood = fieldNamed ? undefined : understand(header, records, preamble.join('\n'));
    const named = understood
      ? ({
          ok: true,
          naming: { maps: understood.maps, debit: understood.debit, credit: understood.credit },
        } as const)
      : nameColumns(header, records);
    const mappedFields = new Set(maps.values());
    const covered =
      named.ok ||
      named.missing.every((f) => mappedFields.has(f) || (f === 'amount' && request.debit !== undefined));
    if (!covered && given === undefined) {
      const closest = named.closest.length
        ? `The closest presets: ${named.closest.map((c) => `--preset ${c.name}`).join(', ')}. `
        : '';
      throw usageError(
        `${path} is in no layout known here, and its ${named.missing.join(' and ')} column cannot be told.`,
        `${closest}Or map the columns: ${named.mapLines.join(' ') || '--map "Date=ts" --map "Amount=amount"'}${
          header.length === 1 && /[;\t]/.test(header[0] ?? '')
            ? ` (one column "${header[0]}": is the delimiter --delimiter ';' or tab?)`
            : ''
        }. Columns: ${header.join(', ')}.`,
        { variant: 'import_layout' },
      );
    }
    if (covered) {
      for (const [name, field] of named.naming.maps) own.set(name, field);
      ownDebit = named.naming.debit;
      ownCredit = named.naming.credit;
      const europe =
        table.delimiter === ';' || detectDecimalComma(amountCells(header, records, own)) === true;
      generic = presetNamed(europe ? 'generic-eu' : 'generic-us')!;
      notes.push(
        said(
          understood
            ? `Recognised: no bank's layout; ${generic.preset.title} (preset ${generic.name}), its columns read from their names and values: ${shownColumns(own, ownDebit, ownCredit, understood, header)}.`
            : `Recognised: no bank's layout; ${generic.preset.title} (preset ${generic.name}): ${shownColumns(own, ownDebit, ownCredit, undefined, header)}.`,
        ),
      );
    }
  }
  const style: Preset | undefined = preset ?? generic?.preset;
  const mappedFields = new Set(maps.values());
  for (const [name, field] of own)
    if (
      field !== 'external_id' &&
      !mappedFields.has(field) &&
      !maps.has(name) &&
      (understood !== undefined || findColumn(header, field) === -1)
    )
      maps.set(name, field);

  const debitName = request.debit ?? (mappedFields.has('amount') ? undefined : ownDebit);
  const creditName = request.credit ?? (debitName === undefined ? undefined : ownCredit);
  if ((request.debit === undefined) !== (request.credit === undefined))
    throw usageError('--debit and --credit go together: give both columns.');
  const debit = debitName === undefined ? undefined : column(debitName, '--debit');
  const credit = creditName === undefined ? undefined : column(creditName, '--credit');
  const debitCredit = [debit, credit].filter((i): i is number => i !== undefined);
  if (debitCredit.length && mappedFields.has('amount') && request.debit !== undefined)
    throw usageError('An amount column is mapped and --debit/--credit are given: use one or the other.');

  const hasCurrencyColumn = () =>
    [...maps.values()].includes('currency') || findColumn(header, 'currency') !== -1;
  let currency = (request.currency ?? preset?.currency)?.trim().toUpperCase();
  if (currency === undefined && understood?.currency && !hasCurrencyColumn()) {
    currency = understood.currency;
    notes.push(settable(`The rows are in ${currency}, as the file says`, 'currency'));
  }
  if (currency === undefined && !budget && !hasCurrencyColumn()) {
    currency = (await hooks.workspaceCurrency()).toUpperCase();
    notes.push(
      settable(
        `${path} has no currency column: the rows are in ${currency}, the workspace's reporting currency`,
        'currency',
      ),
    );
  }
  let account = request.account;
  const card =
    understood?.card === true ||
    request.charges !== undefined ||
    /card|karte|kaart|carte|tarjeta/i.test(bank?.preset.title ?? '');
  if (
    account === undefined &&
    !budget &&
    !mappedFields.has('account_id') &&
    findColumn(header, 'account_id') === -1
  ) {
    // A bank's layout read by its preset names its account the way any file does: a column of one account.
    const accountColumn =
      understood?.roles.account ??
      (understood === undefined && !headerless ? assignRoles(header, records).roles.account : undefined);
    const inColumn = accountColumn === undefined ? undefined : accountInColumn(records, accountColumn);
    const named = ibanInLines(preamble) ?? inColumn ?? numberInLines(preamble);
    account = hooks.account ? ((await hooks.account(named, { card })) ?? named) : named;
    if (account !== undefined && named !== undefined && account === named)
      notes.push(settable(`The account: ${named}, as the file names it`, 'account'));
  }
  const mapping = resolveMapping(header, maps, { account, currency, debitCredit, set });
  if (debitCredit.length) delete mapping.columns.amount;

  const filters: RowFilterAt[] = [];
  for (const [list, keep] of [
    [preset?.keep ?? [], true],
    [preset?.drop ?? [], false],
  ] as const)
    for (const f of list) {
      const index = findColumn(header, f.column);
      if (index !== -1) filters.push({ ...f, index, keep });
    }
  const feeName = firstPresent(preset?.fee?.columns);
  const feeIndex = understood?.roles.fee;
  const fee =
    feeName !== undefined
      ? { index: findColumn(header, feeName), charged: preset!.fee!.charged }
      : feeIndex !== undefined && preset?.fee === undefined
        ? { index: feeIndex, charged: feesCharged(table.records.map((r) => r.values[feeIndex] ?? '')) }
        : undefined;
  // Columns read for the filters, the fee and the duplicate key are not "ignored".
  const bankId = [...own].find(([, f]) => f === 'external_id')?.[0];
  const consulted = new Set([
    ...filters.map((f) => f.index),
    ...(fee ? [fee.index] : []),
    ...(bankId === undefined ? [] : [findColumn(header, bankId)]),
    ...(understood
      ? [
          understood.roles.status,
          understood.roles.balance,
          understood.roles.direction,
          understood.roles.account,
        ].filter((i): i is number => i !== undefined)
      : []),
  ]);
  mapping.ignored = mapping.ignored.filter((h) => !consulted.has(header.indexOf(h)));
  if (mapping.ignored.length) notes.push(said(`Ignoring columns: ${mapping.ignored.join(', ')}.`));

  let dateFormat = (forcedDate as DateFormat | undefined) ?? preset?.dateFormat;
  if (dateFormat === undefined) {
    const dateColumn = mapping.columns[budget ? 'budget_month' : 'ts'];
    const detected = detectDateFormat(
      records.map((r) => (dateColumn === undefined ? '' : (r.values[dateColumn] ?? ''))),
    );
    if (detected.kind === 'found') {
      dateFormat = detected.format;
      notes.push(settable(`Dates read as ${detected.format}`, 'dateFormat'));
    } else if (detected.kind === 'ambiguous') {
      // A bank's layout says its date order; a file read from its content only says it when a value does.
      // Read from its content, a file whose amounts have a decimal comma is day-first: month-first dates are
      // American, and American amounts have a decimal point.
      const order = understood
        ? understood.decimalComma
          ? { dayFirst: true, monthFirst: false, title: 'a file with decimal commas' }
          : undefined
        : style;
      dateFormat = order?.dayFirst
        ? (detected.formats.find((f) => f.startsWith('DD')) ?? 'DD/MM/YYYY')
        : order?.monthFirst
          ? (detected.formats.find((f) => f.startsWith('MM')) ?? 'MM/DD/YYYY')
          : await hooks.chooseDateFormat(detected.formats, detected.example);
      if (order?.dayFirst || order?.monthFirst)
        notes.push(settable(`Dates read as ${dateFormat}, as ${order.title} writes them`, 'dateFormat'));
    }
  }
  const amountIndex = mapping.columns[budget ? 'planned_value' : 'amount'];
  const decimalComma =
    request.decimalComma === true ||
    (request.decimalComma === undefined &&
      ((understood && !preset ? understood.decimalComma : undefined) ??
        style?.decimalComma ??
        detectDecimalComma(
          records.map((r) =>
            [amountIndex, debit, credit].map((i) => (i === undefined ? '' : (r.values[i] ?? ''))).join(' '),
          ),
        ) ??
        false));
  let invertByEvidence = false;
  let cardByEvidence = false;
  let direction: number | undefined;
  if (
    understood &&
    !budget &&
    request.invertSign !== true &&
    request.debit === undefined &&
    !(request.map ?? []).some((m) => /=\s*amount\s*$/i.test(m))
  ) {
    const u: Understood = { ...understood, decimalComma };
    let decision = signOfTable(u, records, request.charges);
    if (decision.kind === 'ambiguous' && hooks.chooseCharges) {
      const answer = await hooks.chooseCharges(decision.example);
      if (answer) decision = signOfTable(u, records, answer);
    }
    if (decision.kind === 'ambiguous')
      throw new ImportError(
        'import_ambiguous_sign',
        `${path}: which way its amounts point cannot be told: ${decision.why}${decision.example ? ` (${decision.example})` : ''}.`,
        ExitCode.failure,
        {
          hint: 'Nothing was sent. If its charges (spending) are positive numbers, run it again with --charges-positive; if they are negative, with --charges-negative.',
        },
      );
    if (decision.kind === 'conflict')
      throw new ImportError(
        decision.with === 'balance' ? 'import_unbalanced' : 'import_ambiguous_sign',
        `${path}:${decision.line}: ${decision.message}.`,
        ExitCode.failure,
        {
          hint: 'Nothing was sent. Check the file against the bank’s statement (is a row missing or edited?), or map its columns with --map and give --charges-positive or --charges-negative.',
        },
      );
    invertByEvidence = decision.invert;
    cardByEvidence = decision.card === true;
    if (decision.byDirection) direction = understood.roles.direction;
    notes.push(
      decision.given
        ? { kind: 'charges', facts: { charges: decision.given } }
        : said(`Signs: ${decision.how}.`),
    );
  }
  const valueOptions = {
    ...(dateFormat ? { dateFormat } : {}),
    decimalComma,
    ...(currency ? { currency } : {}),
    ...(debit !== undefined ? { debit } : {}),
    ...(credit !== undefined ? { credit } : {}),
    invertSign:
      request.invertSign === true ||
      (request.charges === 'positive' && !understood) ||
      (understood ? invertByEvidence : preset?.invertSign === true),
    ...(direction !== undefined ? { direction } : {}),
    ...(understood ? { skip: understood.skip } : {}),
    skipWithoutAmount: preset?.skipWithoutAmount === true || understood !== undefined,
  };
  const fingerprint = JSON.stringify({
    into,
    columns: mapping.columns,
    account: mapping.account ?? null,
    ...valueOptions,
    filters,
    fee: fee ?? null,
    delimiter: table.delimiter,
    headerLine: table.headerLine ?? null,
    card: card || cardByEvidence,
  });
  const bankInfo = bank
    ? { name: bank.name, title: bank.preset.title, recognised: found.recognised }
    : generic
      ? { name: generic.name, title: generic.preset.title, recognised: true }
      : undefined;

  const counterpartyGiven = (request.map ?? []).some((m) => /=\s*counterparty\s*$/i.test(m));
  const parties = budget || counterpartyGiven ? undefined : partiesOf(header, records);
  if (parties)
    notes.push(
      said(
        `Counterparty: the side of ${header[parties.payer]} / ${header[parties.payee]} that is not ${parties.holder}.`,
      ),
    );
  const identity = rowIdentity(
    header,
    own,
    ownDebit,
    ownCredit,
    fee?.index,
    bank?.name ?? generic?.name ?? 'csv',
  );
  const validation: Validation<LedgerRow | BudgetRow> = budget
    ? validateBudget(header, records, mapping, valueOptions)
    : validateRecords(header, records, mapping, {
        ...valueOptions,
        filters,
        ...(fee ? { fee } : {}),
        rowIdentity: identity,
        card: card || cardByEvidence,
        ...(parties ? { parties } : {}),
      });
  if (validation.problems.length) {
    const n = validation.problems.length;
    throw new ImportError(
      'invalid_csv',
      `${path} has ${n} problem${n === 1 ? '' : 's'}; nothing was sent.`,
      ExitCode.failure,
      {
        hint: 'Fix the lines below (or map the columns with --map) and run the import again.',
        details: { problems: validation.problems },
        situation: { variant: 'rows_refused' },
      },
    );
  }
  const base = {
    notes: notes.map((n) => noteWords(n, 'cli')),
    noted: notes,
    bank: bankInfo,
    left: validation.left,
    fingerprint,
    format,
    reconciliation: [],
  };
  return budget
    ? { ...base, into: 'budget_lines', rows: validation.rows as BudgetRow[], target: BUDGET_TARGET }
    : {
        ...base,
        into: 'ledger_entries',
        // A type column's payment words are evidence for the pairing of card payments (transfers/type-words.ts).
        rows: keepTypeWords(validation.rows as LedgerRow[], records, typeColumns(header)),
        target: LEDGER_TARGET,
      };
}

/** The columns as read, for stderr: `Datum → ts, Bedrag → amount, Saldo → balance`. */
function shownColumns(
  own: Map<string, string>,
  debit: string | undefined,
  credit: string | undefined,
  understood: Understood | undefined,
  header: string[],
): string {
  const shown = [...own].map(([c, f]) => `${c} → ${f}`);
  if (debit) shown.push(`${debit} → money out`, `${credit} → money in`);
  const r = understood?.roles;
  if (r?.balance !== undefined) shown.push(`${header[r.balance]} → balance`);
  if (r?.status !== undefined) shown.push(`${header[r.status]} → status`);
  if (r?.direction !== undefined) shown.push(`${header[r.direction]} → debit/credit`);
  return shown.join(', ');
}

function amountCells(header: string[], records: { values: string[] }[], own: Map<string, string>): string[] {
  const name = [...own].find(([, f]) => f === 'amount')?.[0];
  const index = name === undefined ? -1 : findColumn(header, name);
  return index === -1 ? [] : records.map((r) => r.values[index] ?? '');
}

/**
 * A row's identity for its duplicate key, from the raw text of the columns the bank (or the automatic naming)
 * gives its date, amount (or money out and in, and fee) and description, never from `--map`: the same row of the
 * same bank and account has the same key however the columns are mapped, and in an overlapping export. A file
 * whose columns could not be named is identified by its whole raw row.
 */
function rowIdentity(
  header: string[],
  own: Map<string, string>,
  debit: string | undefined,
  credit: string | undefined,
  fee: number | undefined,
  bank: string,
): (values: string[], account: string) => string {
  const at = (name: string | undefined) => (name === undefined ? -1 : findColumn(header, name));
  const of = (field: string) => at([...own].find(([, f]) => f === field)?.[0]);
  const parts = [
    of('external_id'),
    of('ts'),
    of('amount'),
    at(debit),
    at(credit),
    fee ?? -1,
    of('counterparty'),
    of('note'),
  ];
  const usable = parts[1] !== -1 && (parts[2] !== -1 || parts[3] !== -1);
  return (values, account) => {
    const raw = usable
      ? parts.map((i) => (i === -1 ? null : (values[i] ?? '').trim()))
      : values.map((v) => v.trim());
    return JSON.stringify(['expense-import/2', bank, account, ...raw]);
  };
}

/** How a fee column writes a fee charged: as negative numbers when most of its fees are, else positive. */
function feesCharged(values: readonly string[]): 'positive' | 'negative' {
  const signs = values.map((v) => v.replace(/\s/g, '')).filter((v) => /[1-9]/.test(v));
  return signs.filter((v) => /^[-(−]|-$|\)$/.test(v)).length * 2 > signs.length ? 'negative' : 'positive';
}
