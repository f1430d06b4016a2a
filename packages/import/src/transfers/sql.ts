import type { LedgerRow } from '../rows/fields.js';
import { type Batch, buildInsert, LEDGER_TARGET, planBatches } from '../send/batches.js';
import { sha256Hex } from '../send/digest.js';
import { quoteLiteral } from '../send/literal.js';
import { CLEARING_ACCOUNT, cardPaymentsOn, clearingLegOf, PAIR_WINDOW_DAYS } from './legs.js';
import { type Paired, pairTransfers, type TransferStep, type WorkspaceEntry } from './pair.js';

/** Card legs per lookup: the guard bounds a statement's operators, and a card has a payment or two a month. */
const LEGS_PER_LOOKUP = 40;
const COLUMNS =
  'entry_id, ts, account_id, amount, currency, kind, counterparty, note, event_id, external_id, inserted_at';
const DAY = 86_400_000;
const literal = (v: string | null) => (v === null ? 'NULL' : quoteLiteral(v));

/** The window around the rows' dates, a day wider each way than the pairing's (dates without a time zone). */
function window(rows: LedgerRow[]): [string, string] {
  const times = rows.map((r) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(r.ts) ? `${r.ts}T00:00:00Z` : r.ts));
  const reach = (PAIR_WINDOW_DAYS + 1) * DAY;
  const iso = (t: number) => new Date(t).toISOString();
  return [iso(Math.min(...times) - reach), iso(Math.max(...times) + reach)];
}

/**
 * The SELECTs (read mode, the guard's dialect) whose rows pairTransfers needs: for the card legs of this import,
 * the entries in no event that could be their other side and whether the legs are in already; for every import,
 * the clearing legs waiting within the file's dates, with the other leg of each event (the card it came from).
 */
export function transferLookups(rows: LedgerRow[]): string[] {
  if (rows.length === 0) return [];
  // The clearing legs this import would add: their amounts are what the other side's entry holds.
  const clearings = rows.filter((r) => clearingLegOf(r) !== undefined);
  const out: string[] = [];
  for (let i = 0; i < clearings.length; i += LEGS_PER_LOOKUP) {
    const part = clearings.slice(i, i + LEGS_PER_LOOKUP);
    const [from, to] = window(part);
    const amounts = [...new Set(part.map((l) => l.amount))].map((a) => `${literal(a)}::numeric`);
    const events = part.map((l) => literal(l.event_id));
    out.push(
      [
        `SELECT ${COLUMNS} FROM ledger_entries`,
        `WHERE (event_id IS NULL AND ts >= ${literal(from)}::timestamptz AND ts < ${literal(to)}::timestamptz`,
        `  AND amount IN (${amounts.join(', ')}))`,
        `  OR event_id IN (${events.join(', ')})`,
      ].join('\n'),
    );
  }
  const [from, to] = window(rows);
  const accounts = [...new Set(rows.map((r) => r.account_id))].map(literal);
  // Rows of this file moved onto their account by an earlier import of it, with the card leg of each.
  out.push(
    [
      `SELECT ${COLUMNS} FROM ledger_entries`,
      'WHERE event_id IN (SELECT event_id FROM ledger_entries',
      `  WHERE kind = 'transfer' AND account_id IN (${accounts.join(', ')})`,
      `  AND ts >= ${literal(from)}::timestamptz AND ts < ${literal(to)}::timestamptz)`,
    ].join('\n'),
  );
  out.push(
    [
      `SELECT ${COLUMNS} FROM ledger_entries`,
      'WHERE event_id IN (SELECT event_id FROM ledger_entries',
      `  WHERE account_id = ${literal(CLEARING_ACCOUNT)} AND kind = 'transfer'`,
      `  AND ts >= ${literal(from)}::timestamptz AND ts < ${literal(to)}::timestamptz)`,
    ].join('\n'),
  );
  return out;
}

/**
 * One write statement per step, so that each transfer balances within its own request:
 * - pair: the card's leg is inserted (skipped when its external_id or event is there) and only then does the
 *   matching entry become its other leg; an entry changed meanwhile leaves the leg unbalanced, refused at commit;
 * - move: the waiting clearing leg takes the row's account, date, texts and external_id, unless that external_id
 *   is in the workspace already.
 * The statement affects one row when it did its work, none when the import had been done before.
 */
export function stepSql(step: TransferStep): string {
  const { row, entry } = step;
  if (step.kind === 'pair')
    return [
      'WITH added AS (',
      buildInsert([row], LEDGER_TARGET),
      'RETURNING event_id',
      ')',
      `UPDATE ledger_entries SET kind = 'transfer', category = NULL, event_id = ${literal(row.event_id)}`,
      `WHERE entry_id = ${literal(entry.entry_id)}::uuid AND event_id IS NULL AND EXISTS (SELECT 1 FROM added)`,
    ].join('\n');
  return [
    `UPDATE ledger_entries SET account_id = ${literal(row.account_id)}, ts = ${literal(row.ts)}::timestamptz,`,
    `  counterparty = ${literal(row.counterparty)}, note = ${literal(row.note)}, external_id = ${literal(row.external_id)}`,
    `WHERE entry_id = ${literal(entry.entry_id)}::uuid AND account_id = ${literal(CLEARING_ACCOUNT)}`,
    `  AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.external_id = ${literal(row.external_id)})`,
  ].join('\n');
}

/** The steps as batches after the row batches (`first` is the next batch index), each one row of the file. */
export function stepBatches(steps: TransferStep[], first: number): Batch<LedgerRow>[] {
  return steps.map((step, i) => ({
    index: first + i,
    probe: false,
    rows: [step.row],
    sql: stepSql(step),
    transfer:
      step.kind === 'pair'
        ? { kind: 'paired' as const, with: step.entry.account_id }
        : { kind: 'moved' as const, with: step.from },
  }));
}

/** Runs the lookups through `read` (a SELECT in the workspace) and pairs the rows with what they found. */
export async function pairWithWorkspace(
  rows: LedgerRow[],
  read: (sql: string) => Promise<Record<string, unknown>[]>,
): Promise<Paired> {
  // Accounts the workspace says are credit cards: their payments are transfers whatever the file said.
  const incomes = [...new Set(rows.filter((r) => r.kind === 'income').map((r) => r.account_id))];
  if (incomes.length > 0 && incomes.length <= LEGS_PER_LOOKUP) {
    const cards = await read(
      `SELECT account_id FROM account_metadata WHERE account_type = 'credit_card' AND account_id IN (${incomes.map(literal).join(', ')})`,
    );
    rows = cardPaymentsOn(rows, new Set(cards.map((c) => String(c.account_id))));
  }
  const found: WorkspaceEntry[] = [];
  const seen = new Set<string>();
  for (const sql of transferLookups(rows))
    for (const r of await read(sql)) {
      if (seen.has(String(r.entry_id))) continue;
      seen.add(String(r.entry_id));
      const text = (v: unknown) =>
        v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v);
      found.push({
        entry_id: String(r.entry_id),
        ts: text(r.ts)!,
        account_id: String(r.account_id),
        amount: String(r.amount),
        currency: String(r.currency),
        kind: String(r.kind),
        counterparty: text(r.counterparty),
        note: text(r.note),
        event_id: text(r.event_id),
        external_id: text(r.external_id),
        inserted_at: text(r.inserted_at),
      });
    }
  return pairTransfers(rows, found);
}

/** The batches of a paired import: the rows' INSERT batches, then one per step. */
export function pairedBatches(paired: Paired): Batch<LedgerRow>[] {
  const batches = planBatches(paired.rows, LEDGER_TARGET);
  return [...batches, ...stepBatches(paired.steps, batches.length)];
}

/**
 * The fingerprint of a paired import, for its batches' Idempotency-Keys: what the workspace held shapes the
 * batches (a leg paired, a clearing leg left out), so another pairing must not replay an answer kept for another.
 */
export function pairedFingerprint(fingerprint: string, prepared: LedgerRow[], paired: Paired): string {
  if (paired.steps.length === 0 && paired.rows.length === prepared.length) return fingerprint;
  const shape = [
    paired.rows.map((r) => r.external_id),
    paired.steps.map((s) => [s.kind, s.entry.entry_id, s.row.external_id]),
  ];
  return `${fingerprint}\n${sha256Hex(JSON.stringify(shape))}`;
}
