import { type DateFormat, isoDate, normaliseAmount } from '../csv/dialect.js';
import type { Mapping } from '../csv/mapping.js';
import type { CsvRecord } from '../csv/parse.js';
import type { ImportTarget } from '../send/batches.js';
import { BUDGET_CASTS, BUDGET_FIELDS, type BudgetField, type BudgetRow, DIRECTIONS } from './fields.js';
import type { RowProblem, Validation } from './validate.js';
import { parseAmount, parseCurrency, signOf } from './values.js';

/** budget_lines: a line is skipped when the workspace has one for its month, direction and category. */
export const BUDGET_TARGET: ImportTarget<BudgetRow> = {
  table: 'budget_lines',
  columns: BUDGET_FIELDS.map((field) => [field, BUDGET_CASTS[field] ?? null] as const),
  present: [
    'e.budget_month = v.budget_month::date AND e.direction = v.direction AND e.category = v.category',
  ],
  group: () => null,
};

const MONTH = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/** A budget month written 2026-11, 2026-11-01 (or in the file's date order) as its first day. */
export function budgetMonth(raw: string, dateFormat: DateFormat | undefined): string | undefined {
  const s = raw.trim();
  const iso = dateFormat && dateFormat !== 'YYYY-MM-DD' && !MONTH.test(s) ? isoDate(s, dateFormat) : s;
  const m = iso ? MONTH.exec(iso) : null;
  if (!m || +m[2]! < 1 || +m[2]! > 12 || (m[3] !== undefined && m[3] !== '01')) return undefined;
  return `${m[1]}-${m[2]}-01`;
}

export interface BudgetOptions {
  dateFormat?: DateFormat;
  decimalComma?: boolean;
  currency?: string;
}

/** Validates every record as a budget line; all problems are collected, none stops the walk. */
export function validateBudget(
  header: string[],
  records: CsvRecord[],
  mapping: Mapping,
  options: BudgetOptions = {},
): Validation<BudgetRow> {
  const rows: BudgetRow[] = [];
  const problems: RowProblem[] = [];
  const seen = new Map<string, number>();
  for (const record of records) {
    const before = problems.length;
    const problem = (message: string, field: BudgetField) =>
      problems.push({ line: record.line, field, message });
    if (record.values.length !== header.length) {
      problems.push({
        line: record.line,
        message: `has ${record.values.length} fields, the header has ${header.length}`,
      });
      continue;
    }
    const get = (field: BudgetField) => {
      const index = mapping.columns[field];
      return index === undefined ? '' : (record.values[index] ?? '').trim();
    };
    const month = budgetMonth(get('budget_month'), options.dateFormat);
    if (!month)
      problem(
        `"${get('budget_month')}" is not a month (write 2026-11 or 2026-11-01, the first day)`,
        'budget_month',
      );
    const direction = get('direction').toLowerCase();
    if (!(DIRECTIONS as readonly string[]).includes(direction))
      problem(`"${get('direction')}" is not one of ${DIRECTIONS.join(', ')}`, 'direction');
    const category = get('category');
    if (category === '') problem('is empty (every budget line names its category)', 'category');
    const normal = normaliseAmount(get('planned_value'), options.decimalComma === true);
    const planned = parseAmount(normal ?? get('planned_value'));
    if (!planned.ok) problem(planned.problem, 'planned_value');
    else if (planned.value.startsWith('-') || signOf(planned.value) === 0)
      problem(`${get('planned_value')} is not positive (a planned value is above zero)`, 'planned_value');
    const currency = parseCurrency(get('currency') || options.currency || '');
    if (!currency.ok) problem(currency.problem, 'currency');
    if (problems.length > before || !month || !planned.ok || !currency.ok) continue;
    const key = `${month}\n${direction}\n${category}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problem(
        `repeats the ${direction} line for ${category} in ${month.slice(0, 7)} of line ${first}`,
        'category',
      );
      continue;
    }
    seen.set(key, record.line);
    const note = get('note');
    rows.push({
      line: record.line,
      budget_month: month,
      direction,
      category,
      currency: currency.value,
      planned_value: planned.value,
      note: note === '' ? null : note,
    });
  }
  return { rows, problems, left: [] };
}
