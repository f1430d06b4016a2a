import type { LedgerField } from '../rows/fields.js';
import { looksLikeAmount, looksLikeDate } from './looks.js';
import { findColumn, normalise } from './mapping.js';
import type { CsvRecord } from './parse.js';
import { PRESET_NAMES, PRESETS, type Preset, type PresetName } from './presets.js';
import { type Role, rolesOf } from './words.js';

/**
 * Naming the columns of a file in no known bank's layout (pure): by the common names of the generic presets,
 * then by content (the one column of dates, the one column of amounts). When that is not unambiguous, the hint
 * names the closest presets and the exact `--map` lines for the columns found.
 */

const FIELDS: LedgerField[] = ['ts', 'amount', 'currency', 'counterparty', 'category', 'note'];
const BALANCE = /balance|saldo|bal\.?$|kontostand|solde/i;
const NOT_AMOUNT = new Set<Role>(['out', 'in', 'balance', 'account', 'id', 'reference']);

const GENERIC: Preset[] = [PRESETS['generic-us'], PRESETS['generic-eu']];

function synonyms(field: LedgerField): string[] {
  return [...new Set(GENERIC.flatMap((p) => [...(p.columns[field] ?? [])]))];
}

export interface ColumnNaming {
  /** column name → field, as `--map` would give them. */
  maps: Map<string, string>;
  debit?: string;
  credit?: string;
}

export type NamingResult =
  | { ok: true; naming: ColumnNaming }
  | {
      ok: false;
      /** What could be named: used when --map gives the rest. */
      naming: ColumnNaming;
      missing: ('ts' | 'amount')[];
      closest: { name: PresetName; found: number }[];
      mapLines: string[];
    };

/** Columns whose every non-empty value satisfies `test` (and that have at least one). */
function columnsWhere(header: string[], records: CsvRecord[], test: (cell: string) => boolean): number[] {
  const sample = records.slice(0, 200);
  return header
    .map((_, i) => i)
    .filter((i) => {
      const cells = sample.map((r) => (r.values[i] ?? '').trim()).filter((c) => c !== '');
      return cells.length > 0 && cells.every(test);
    });
}

/** Names the columns, or says what is missing with the closest presets and `--map` lines to try. */
export function nameColumns(header: string[], records: CsvRecord[]): NamingResult {
  const maps = new Map<string, string>();
  const used = new Set<number>();
  const take = (field: string, index: number) => {
    maps.set(header[index]!, field);
    used.add(index);
  };
  for (const field of FIELDS) {
    if (findColumn(header, field) !== -1) {
      take(field, findColumn(header, field));
      continue;
    }
    const index = synonyms(field)
      .map((name) => findColumn(header, name))
      .find((i) => i !== -1 && !used.has(i));
    if (index !== undefined) take(field, index);
  }
  const naming: ColumnNaming = { maps };
  const mapped = new Set([...maps.values(), ...FIELDS.filter((f) => findColumn(header, f) !== -1)]);
  if (!mapped.has('amount')) {
    const pick = (names: readonly string[] | undefined) =>
      names?.map((n) => findColumn(header, n)).find((i) => i !== -1 && !used.has(i));
    const debit = pick(PRESETS['generic-us'].debit);
    const credit = pick(PRESETS['generic-us'].credit);
    if (debit !== undefined && credit !== undefined) {
      naming.debit = header[debit]!;
      naming.credit = header[credit]!;
      used.add(debit);
      used.add(credit);
    }
  }
  const missing: ('ts' | 'amount')[] = [];
  if (!mapped.has('ts')) {
    const dates = columnsWhere(header, records, looksLikeDate).filter((i) => !used.has(i));
    if (dates.length === 1) take('ts', dates[0]!);
    else missing.push('ts');
  }
  if (!mapped.has('amount') && naming.debit === undefined) {
    const amounts = columnsWhere(header, records, looksLikeAmount).filter(
      (i) => !used.has(i) && !BALANCE.test(header[i]!),
    );
    if (amounts.length === 1) take('amount', amounts[0]!);
    else missing.push('amount');
  }
  if (missing.length === 0) return { ok: true, naming };
  return { ok: false, naming, missing, closest: closestPresets(header), mapLines: mapLines(header, records) };
}

/** The presets with the most of their column names in the header (at most three, best first). */
export function closestPresets(header: string[]): { name: PresetName; found: number }[] {
  const names = new Set(header.map(normalise));
  return PRESET_NAMES.filter((name) => (PRESETS[name] as Preset).signatures)
    .map((name) => {
      const preset = PRESETS[name] as Preset;
      const wanted = new Set(preset.signatures!.flat().map(normalise));
      return { name, found: [...wanted].filter((n) => names.has(n)).length };
    })
    .filter((p) => p.found > 0)
    .sort((a, b) => b.found - a.found)
    .slice(0, 3);
}

/** A `--map "Column=field"` for every column whose field can be guessed, by its name or its content. */
export function mapLines(header: string[], records: CsvRecord[]): string[] {
  const byName = new Map<string, string>();
  for (const name of PRESET_NAMES) {
    const preset = PRESETS[name] as Preset;
    for (const [field, columns] of Object.entries(preset.columns))
      for (const c of columns) if (!byName.has(normalise(c))) byName.set(normalise(c), field);
  }
  const dates = new Set(columnsWhere(header, records, looksLikeDate));
  const amounts = new Set(columnsWhere(header, records, looksLikeAmount));
  const lines: string[] = [];
  const fields = new Set<string>();
  header.forEach((column, i) => {
    if (column === '') return;
    let field = byName.get(normalise(column));
    if (!field && dates.has(i)) field = 'ts';
    // Never a column of money out, money in, a balance or an account number as the amount: its preview would
    // book spending as income, or a number that is not money.
    const said = rolesOf(column);
    if (!field && amounts.has(i) && !BALANCE.test(column) && !said.some((r) => NOT_AMOUNT.has(r)))
      field = 'amount';
    if (!field || fields.has(field) || field === 'external_id') return;
    fields.add(field);
    lines.push(`--map "${column}=${field}"`);
  });
  const out = header.find((h) => rolesOf(h).includes('out'));
  const inn = header.find((h) => rolesOf(h).includes('in'));
  if (!fields.has('amount') && out && inn) lines.push(`--debit "${out}" --credit "${inn}"`);
  return lines;
}
