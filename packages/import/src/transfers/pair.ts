import { settlesCard } from '../csv/words.js';
import { units } from '../evidence/money.js';
import type { LedgerRow } from '../rows/fields.js';
import { CLEARING_ACCOUNT, clearingLegOf, PAIR_WINDOW_DAYS } from './legs.js';

/** An entry the workspace holds, as the lookups (transfers/sql.ts) read it. */
export interface WorkspaceEntry {
  entry_id: string;
  ts: string;
  account_id: string;
  amount: string;
  currency: string;
  kind: string;
  counterparty?: string | null;
  note?: string | null;
  event_id: string | null;
  external_id: string | null;
  /** When the request that wrote it began (a request's rows share it). */
  inserted_at?: string | null;
}

/**
 * What the import does beyond inserting rows, each in a request of its own:
 * - `pair`: insert the card's leg and make the workspace's matching entry its other leg (same event_id);
 * - `move`: the row this import brings is the other side of a transfer waiting on the clearing account: that leg
 *   moves onto the row's account (taking its date, texts and external_id) instead of a second row being inserted.
 */
export type TransferStep =
  | { kind: 'pair'; row: LedgerRow; entry: WorkspaceEntry }
  | { kind: 'move'; row: LedgerRow; entry: WorkspaceEntry; from: string };

export interface Paired {
  /** The rows still inserted as they are. */
  rows: LedgerRow[];
  steps: TransferStep[];
  /** One line per transfer of the file, for the preview: `line 12: transfer, matched to checking 2026-03-02`. */
  notes: string[];
}

const DAY = 86_400_000;
const time = (ts: string) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(ts) ? `${ts}T00:00:00Z` : ts);
const day = (ts: string) => new Date(time(ts)).toISOString().slice(0, 10);
const same = (a: string, b: string) => units(a) !== undefined && units(a) === units(b);
const apart = (a: string, b: string) => Math.abs(time(a) - time(b));
const within = (a: string, b: string) => apart(a, b) <= PAIR_WINDOW_DAYS * DAY;
/** Whether an entry or a row says it settles a card (csv/words.ts): the amount and the week alone are not enough. */
const saysCard = (e: { counterparty?: string | null; note?: string | null }) =>
  settlesCard(`${e.counterparty ?? ''} ${e.note ?? ''}`);

/** The nearest in time of `candidates` (then the earlier, then by id): one choice, the same every run. */
function nearest(ts: string, candidates: WorkspaceEntry[]): WorkspaceEntry | undefined {
  return [...candidates].sort(
    (a, b) =>
      apart(a.ts, ts) - apart(b.ts, ts) || time(a.ts) - time(b.ts) || a.entry_id.localeCompare(b.entry_id),
  )[0];
}

/** The other legs of an entry's event. */
const partnersOf = (e: WorkspaceEntry, found: WorkspaceEntry[]) =>
  found.filter((o) => o.event_id === e.event_id && o.entry_id !== e.entry_id);

/**
 * Written in the same request as its partner: a clearing leg (moved or not), not an entry paired later. A request
 * is one transaction and `inserted_at` its start, so equal times say so.
 */
const bornTogether = (a: WorkspaceEntry, b: WorkspaceEntry) =>
  a.inserted_at !== undefined && a.inserted_at !== null && a.inserted_at === b.inserted_at;

/**
 * Pairs the transfers of an import with what the workspace holds (pure; `found` is what transferLookups read).
 * A card payment's leg pairs with an entry on another account of the opposite amount, same currency, within
 * ±7 days, in no event yet, whose words say it settles a card; its clearing leg is then not inserted. A row that
 * has the amount of a clearing leg waiting on the clearing account (same currency, ±7 days, not on the card's own
 * account, its words saying it settles a card) moves that leg.
 *
 * The same file gives the same plan after it was imported as before (what was paired or moved then is planned the
 * same way, its statements changing nothing now), so a repeated request with the same Idempotency-Key replays its
 * kept answers instead of meeting other statements under the same keys.
 */
export function pairTransfers(rows: LedgerRow[], found: WorkspaceEntry[]): Paired {
  const held = new Map<string, WorkspaceEntry>();
  for (const e of found) if (e.external_id !== null) held.set(e.external_id, e);
  const claimed = new Set<string>();
  const dropped = new Set<LedgerRow>();
  const steps: TransferStep[] = [];
  const notes: string[] = [];
  const byExternal = new Map(rows.map((r) => [r.external_id, r]));
  const pair = (leg: LedgerRow, clearing: LedgerRow, entry: WorkspaceEntry) => {
    claimed.add(entry.entry_id);
    dropped.add(leg).add(clearing);
    steps.push({ kind: 'pair', row: leg, entry });
    notes.push(`line ${leg.line}: transfer, matched to ${entry.account_id} ${day(entry.ts)}`);
  };

  for (const clearing of rows) {
    const legId = clearingLegOf(clearing);
    const leg = legId === undefined ? undefined : byExternal.get(legId);
    if (!leg) continue;
    const before = held.get(leg.external_id);
    if (before) {
      // Imported before: paired with an entry then (the same step again, now changing nothing), else as it was.
      const other = partnersOf(before, found)[0];
      if (other && other.account_id !== CLEARING_ACCOUNT && !bornTogether(other, before))
        pair(leg, clearing, other);
      continue;
    }
    const entry = nearest(
      leg.ts,
      found.filter(
        (e) =>
          !claimed.has(e.entry_id) &&
          e.event_id === null &&
          e.kind !== 'transfer' &&
          e.account_id !== leg.account_id &&
          e.account_id !== CLEARING_ACCOUNT &&
          e.currency === leg.currency &&
          same(e.amount, clearing.amount) &&
          within(e.ts, leg.ts) &&
          saysCard(e),
      ),
    );
    if (entry) pair(leg, clearing, entry);
    else notes.push(`line ${leg.line}: transfer, other side not yet imported (held on ${CLEARING_ACCOUNT})`);
  }

  const move = (row: LedgerRow, entry: WorkspaceEntry, card: WorkspaceEntry) => {
    claimed.add(entry.entry_id);
    dropped.add(row);
    steps.push({ kind: 'move', row, entry, from: card.account_id });
    notes.push(`line ${row.line}: transfer, matched to ${card.account_id} ${day(card.ts)}`);
  };
  // Rows moved onto their account before: the same step again (it changes nothing now).
  for (const row of rows) {
    const before = held.get(row.external_id);
    if (
      !before ||
      row.kind === 'transfer' ||
      before.kind !== 'transfer' ||
      before.account_id !== row.account_id
    )
      continue;
    const card = partnersOf(before, found).find((o) => bornTogether(o, before));
    if (card) move(row, before, card);
  }
  // The clearing legs already waiting, each with the card leg it came from (the other leg of its event): each
  // takes the nearest row of this file in time (then the earlier line) that fits it.
  for (const waiting of found) {
    if (
      waiting.account_id !== CLEARING_ACCOUNT ||
      waiting.kind !== 'transfer' ||
      claimed.has(waiting.entry_id)
    )
      continue;
    const card = partnersOf(waiting, found)[0];
    if (!card) continue;
    const row = rows
      .filter(
        (r) =>
          !dropped.has(r) &&
          r.kind !== 'transfer' &&
          !held.has(r.external_id) &&
          r.account_id !== card.account_id &&
          r.currency === waiting.currency &&
          same(r.amount, waiting.amount) &&
          within(r.ts, waiting.ts) &&
          saysCard(r),
      )
      .sort((a, b) => apart(a.ts, waiting.ts) - apart(b.ts, waiting.ts) || a.line - b.line)[0];
    if (row) move(row, waiting, card);
  }
  return { rows: rows.filter((r) => !dropped.has(r)), steps, notes };
}
