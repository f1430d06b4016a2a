// Activity: the change history of the selected workspace (GET /changes): when, who, what in words; a change's
// rows as a before/after table (GET /changes/{id}); a revert shown first as a dry run in the same form.
import { api } from '../api.js';
import { count, dateTime, day, money, month, shortChangeId } from '../format.js';
import { ROUTES } from '../routes.js';
import { ChangeId, Component, format, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

/** @typedef {import('../types/console').Json} Json */

/** @type {Record<string, [string, string]>} */
const NOUNS = {
  ledger_entries: ['transaction', 'transactions'],
  budget_lines: ['budget line', 'budget lines'],
  workspace_settings: ['workspace setting', 'workspace settings'],
  account_metadata: ['account detail', 'account details'],
};
/** @type {Record<string, string>} */
const VERBS = { INSERT: 'Added', UPDATE: 'Changed', DELETE: 'Deleted' };
/** Columns every row has and nobody edits: left out of the before/after table. */
const BOOKKEEPING = new Set(['workspace_id', 'inserted_at', 'updated_at']);

/** @param {Json} change */
function summary(change) {
  // A change group (an import's batches) is listed once, as its newest change: its label and all its rows.
  const group = change.group?.changes > 1 ? change.group : null;
  const parts = change.statements.map((/** @type {Json} */ s) => {
    const [one, many] = NOUNS[s.table] ?? [s.table, s.table];
    const count = group && change.statements.length === 1 ? group.rowCount : s.rowCount;
    return `${VERBS[s.command] ?? s.command} ${count} ${count === 1 ? one : many}`;
  });
  const what = parts.join(', ') || 'No rows';
  const said = change.endpoint === 'revert' ? `Revert: ${what.toLowerCase()}` : what;
  if (!group) return said;
  return `${group.label || 'Grouped changes'}: ${said.charAt(0).toLowerCase()}${said.slice(1)} (${group.changes} steps)`;
}

/**
 * A row named as a person knows it: an entry by its day, payee or note, and amount; a budget line by its month,
 * category and amount; other rows by their key (ids shortened).
 */
/**
 * @param {Json} row
 * @param {string | undefined} timeZone
 */
export function rowName(row, timeZone) {
  const image = row.after ?? row.before ?? {};
  if (row.table === 'ledger_entries' && image.ts !== undefined) {
    const what = image.counterparty || image.note || image.category || image.account_id;
    return [day(image.ts, timeZone), what, money(image.amount, image.currency)].filter(Boolean).join(' · ');
  }
  if (row.table === 'budget_lines' && image.budget_month !== undefined) {
    return `Budget ${month(image.budget_month)} · ${image.category} · ${money(image.planned_value, image.currency)}`;
  }
  const [one] = NOUNS[row.table] ?? [row.table];
  const key = Object.values(row.key ?? {})
    .map((v) => (typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v) ? v.slice(0, 8) : format(v)))
    .join(' ');
  return `${one} ${key}`;
}

/**
 * @param {Json} row
 * @returns {'added' | 'removed' | 'changed'}
 */
function stateOf(row) {
  return row.before === null ? 'added' : row.after === null ? 'removed' : 'changed';
}

/**
 * The first rows of a change as the list names them (the API's preview): "added · Sep 10, 2026 · market · -€45.50";
 * "and N more rows" when the change has more.
 */
/**
 * @param {Json} change
 * @param {string | undefined} timeZone
 */
function previewList(change, timeZone) {
  /** @type {Json[]} */
  const rows = change.preview ?? [];
  if (rows.length === 0) return null;
  const total =
    change.group?.changes > 1
      ? change.group.rowCount
      : change.statements.reduce((/** @type {number} */ n, /** @type {Json} */ s) => n + s.rowCount, 0);
  const more = total - rows.length;
  return html`<ul class="preview">
    ${rows.map((r) => {
      const when =
        r.date === null ? null : r.table === 'budget_lines' ? month(r.date) : day(r.date, timeZone);
      const amount = r.amount === null ? null : money(r.amount, r.currency);
      return html`<li>${[r.action, when, r.label, amount].filter(Boolean).join(' · ')}</li>`;
    })}
    ${more > 0 ? html`<li class="muted">and ${count(more, 'more row', 'more rows')}</li>` : null}
  </ul>`;
}

/**
 * What a revert does, in words: "removes 3 transactions, puts back 1 budget line" (the rows' "Now" is before, the
 * revert's result after).
 */
const WILL = { added: 'puts back', removed: 'removes', changed: 'changes back' };
const DID = { added: 'put back', removed: 'removed', changed: 'changed back' };

/**
 * @param {Json[]} rows
 * @param {'will' | 'did'} [tense]
 */
export function revertWords(rows, tense = 'will') {
  /** @type {Map<string, Map<string, number>>} */
  const tally = new Map();
  for (const row of rows) {
    const verb = (tense === 'will' ? WILL : DID)[stateOf(row)];
    const byTable = tally.get(verb) ?? new Map();
    byTable.set(row.table, (byTable.get(row.table) ?? 0) + 1);
    tally.set(verb, byTable);
  }
  const parts = [...tally].map(
    ([verb, byTable]) =>
      `${verb} ${[...byTable]
        .map(([table, n]) => {
          const [one, many] = NOUNS[table] ?? [table, table];
          return count(n, one, many);
        })
        .join(' and ')}`,
  );
  return parts.join(', ') || (tense === 'will' ? 'changes no row' : 'changed no row');
}

/** A field's value as a person reads it: amounts with their currency, entries' days without a clock time. */
/**
 * @param {unknown} value
 * @param {string} column
 * @param {Json} image the row the value is of
 * @param {string | undefined} timeZone
 */
function cell(value, column, image, timeZone) {
  if (value === undefined) return '';
  if (value === null) return '—';
  if (column === 'amount' || column === 'planned_value') return money(value, image.currency);
  if (column === 'ts' || column === 'budget_month') return day(value, timeZone);
  return format(value);
}

/** Per row, the columns that differ between its two images (all of them for an added or deleted row). */
/** @param {{ rows: Json[], caption: string, beforeLabel: string, afterLabel: string, timeZone?: string }} props */
export function RowDiff({ rows, caption, beforeLabel, afterLabel, timeZone }) {
  /** @type {{ name: string, column: string, row: Json }[]} */
  const lines = [];
  for (const row of rows) {
    const columns = [...new Set([...Object.keys(row.before ?? {}), ...Object.keys(row.after ?? {})])].filter(
      (c) => !BOOKKEEPING.has(c),
    );
    const changed = columns.filter(
      (c) => JSON.stringify(row.before?.[c] ?? null) !== JSON.stringify(row.after?.[c] ?? null),
    );
    const state = stateOf(row);
    for (const [i, column] of changed.entries()) {
      lines.push({ name: i === 0 ? `${rowName(row, timeZone)} (${state})` : '', column, row });
    }
  }
  return html`<div class="table-box" tabindex="0"><table class="diff">
    <caption class="muted">${caption}</caption>
    <thead><tr><th scope="col">Row</th><th scope="col">Field</th><th scope="col">${beforeLabel}</th><th scope="col">${afterLabel}</th></tr></thead>
    <tbody>${lines.map(
      (l) => html`<tr class=${l.name ? 'first' : ''}><td>${l.name}</td><td data-label="Field">${l.column}</td>
        <td class=${l.row.before ? 'old amount' : 'muted amount'} data-label=${beforeLabel}>${l.row.before ? cell(l.row.before[l.column], l.column, l.row.before, timeZone) : '(none)'}</td>
        <td class=${l.row.after ? 'new amount' : 'muted amount'} data-label=${afterLabel}>${l.row.after ? cell(l.row.after[l.column], l.column, l.row.after, timeZone) : '(none)'}</td></tr>`,
    )}</tbody>
  </table></div>`;
}

/**
 * @typedef {{ change: Json, result: Json, steps?: { changeId: string, result: Json }[] }} Preview
 * @typedef {object} ActivityState
 * @property {Json[] | null} changes
 * @property {unknown} error
 * @property {Preview | null} preview a revert's dry run, waiting for its confirmation
 * @property {{ change: Json, rows: Json[] } | null} details
 * @property {import('preact').ComponentChildren} message
 */

/** @extends {Component<import('../types/console').PageProps, ActivityState>} */
export class ActivityPage extends Component {
  constructor() {
    super();
    /** @type {ActivityState} */
    this.state = { changes: null, error: null, preview: null, details: null, message: null };
  }

  /** @override */
  componentDidMount() {
    this.load();
  }

  async load() {
    if (!this.props.workspaceId) return;
    try {
      const { changes } = await api(ROUTES.changes, {
        query: { limit: 50 },
        workspaceId: this.props.workspaceId,
      });
      this.setState({ changes });
    } catch (error) {
      this.setState({ error });
    }
  }

  /** @param {Json} change */
  async show(change) {
    try {
      const data = await api(ROUTES.change, {
        params: { changeId: change.changeId },
        workspaceId: this.props.workspaceId,
      });
      this.setState({ details: { change, rows: data.rows }, preview: null, error: null });
    } catch (error) {
      this.setState({ error });
    }
  }

  /**
   * @param {Json} change
   * @param {boolean} dryRun
   */
  async revert(change, dryRun) {
    if (change.group?.changes > 1) return this.revertGroup(change, dryRun);
    try {
      const token = this.state.preview?.result.confirmToken;
      const result = await api(ROUTES.revertChange, {
        params: { changeId: change.changeId },
        body: dryRun ? { dryRun: true } : token ? { confirmToken: token } : {},
        workspaceId: this.props.workspaceId,
      });
      if (dryRun) this.setState({ preview: { change, result }, details: null, error: null });
      else {
        this.setState({
          preview: null,
          error: null,
          message: html`Change reverted: ${revertWords(this.state.preview?.result.rows ?? [], 'did')} (as change <${ChangeId} id=${result.changeId} />).`,
        });
        await this.load();
      }
    } catch (error) {
      this.setState({ error, preview: null });
    }
  }

  /**
   * A change group (an import's batches) is taken back as the CLI does it: each member not yet reverted, newest
   * first, one revert each (each within the row cap), every one dry-run before any is sent; the reverts share a
   * change group of their own, so they are one entry too.
   */
  /**
   * @param {Json} change
   * @param {boolean} dryRun
   */
  async revertGroup(change, dryRun) {
    const workspaceId = this.props.workspaceId;
    try {
      if (dryRun) {
        const { members } = await api(ROUTES.change, { params: { changeId: change.changeId }, workspaceId });
        /** @type {{ changeId: string, result: Json }[]} */
        const steps = [];
        for (const member of members.filter((/** @type {Json} */ m) => !m.revertedBy).reverse()) {
          const result = await api(ROUTES.revertChange, {
            params: { changeId: member.changeId },
            body: { dryRun: true },
            workspaceId,
          });
          steps.push({ changeId: member.changeId, result });
        }
        const result = {
          rows: steps.flatMap((s) => s.result.rows),
          sql: steps.map((s) => s.result.sql).join(';\n\n'),
        };
        this.setState({ preview: { change, result, steps }, details: null, error: null });
        return;
      }
      const group = { id: crypto.randomUUID(), label: `revert ${change.group.label || 'grouped changes'}` };
      let last = null;
      for (const step of this.state.preview?.steps ?? []) {
        last = await api(ROUTES.revertChange, {
          params: { changeId: step.changeId },
          body: { confirmToken: step.result.confirmToken },
          workspaceId,
          changeGroup: group,
        });
      }
      this.setState({
        preview: null,
        error: null,
        message: html`Reverted ${change.group.label || 'the grouped changes'}: ${revertWords(this.state.preview?.result.rows ?? [], 'did')}${last ? html` (as change <${ChangeId} id=${last.changeId} />)` : ''}.`,
      });
      await this.load();
    } catch (error) {
      this.setState({ error, preview: null });
      await this.load();
    }
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {ActivityState} state
   */
  render({ workspaceId, settings }, { changes, error, preview, details, message }) {
    if (!workspaceId)
      return html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    return html`
      <p class="muted">Every saved change, by whom, with its rows before and after; kept 90 days. A change can be
        taken back while its rows are still as it left them.</p>
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message}<//>` : null}
      ${preview ? this.previewBlock(preview) : null}
      ${details ? this.detailsBlock(details) : null}
      ${
        changes === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : changes.length === 0
            ? html`<p>No changes yet.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Changes, newest first</caption>
                <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  ${changes.map(
                    (/** @type {Json} */ c) => html`<tr>
                      <td>${dateTime(c.at, settings?.timeZone)}</td>
                      <td data-label="By">${c.by.email ?? '—'}${c.by.label ? html` <span class="muted">(${c.by.label})</span>` : null}</td>
                      <td>${summary(c)} <span class="muted">· change <${ChangeId} id=${c.changeId} short=${c.shortId} /></span>
                        ${previewList(c, settings?.timeZone)}</td>
                      <td class="actions">
                        <button type="button" class="secondary" aria-label="Details of change ${c.shortId ?? shortChangeId(c.changeId)}"
                          onClick=${() => this.show(c)}>Details</button>
                        ${
                          c.revertedBy
                            ? html`<span class="muted">reverted</span>`
                            : html`<button type="button" class="secondary" onClick=${() => this.revert(c, true)}>Revert…</button>`
                        }
                      </td>
                    </tr>`,
                  )}
                </tbody>
              </table></div>`
      }
    `;
  }

  /** @param {{ change: Json, rows: Json[] }} details */
  detailsBlock({ change, rows }) {
    return html`<section class="notice" aria-labelledby="change-details">
      <h2 id="change-details">${summary(change)}</h2>
      <${RowDiff} rows=${rows} caption="Rows of this change" beforeLabel="Before" afterLabel="After" timeZone=${this.props.settings?.timeZone} />
      <details><summary>SQL of this change</summary><pre><code>${change.sql}</code></pre></details>
      <button type="button" class="secondary" onClick=${() => this.setState({ details: null })}>Close</button>
    </section>`;
  }

  /** @param {Preview} preview */
  previewBlock({ change, result, steps }) {
    return html`<div class="notice" role="status">
      <p><strong>Dry run of the revert:</strong> nothing was changed yet. The revert ${revertWords(result.rows)}${
        steps ? ` (${count(steps.length, 'change', 'changes')} of “${change.group.label}”, newest first)` : ''
      }:</p>
      <${RowDiff} rows=${result.rows} caption="Rows the revert changes" beforeLabel="Now" afterLabel="After the revert" timeZone=${this.props.settings?.timeZone} />
      <details><summary>SQL of the revert</summary><pre><code>${result.sql}</code></pre></details>
      <button type="button" class="danger" onClick=${() => this.revert(change, false)}>Confirm revert</button>
      <button type="button" class="secondary" onClick=${() => this.setState({ preview: null })}>Cancel</button>
    </div>`;
  }
}
