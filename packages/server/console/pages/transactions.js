// Transactions: ledger_entries of the selected workspace, filtered and paged; category and note edited in
// the row; add and delete. Every write is a normal change (in Activity, with its change id).
import { day, isoDay, money, monthStart, today } from '../format.js';
import { lit, num, rows, write } from '../sql.js';
import { ChangeId, Component, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

const PAGE = 25;
const EMPTY_FILTER = { month: '', account: '', category: '', text: '', min: '', max: '' };

/**
 * @typedef {import('../types/console').Row} Row
 * @typedef {typeof EMPTY_FILTER} Filter
 */

/**
 * The WHERE clause of a filter ('' for none).
 * @param {Filter} f
 */
function where(f) {
  /** @type {string[]} */
  const parts = [];
  if (/^\d{4}-\d{2}$/.test(f.month)) {
    const first = `${f.month}-01`;
    // SQL runs in the workspace's zone: a DATE compared with ts is local midnight.
    parts.push(`ts >= DATE ${lit(first)} AND ts < DATE ${lit(monthStart(first, 1))}`);
  }
  if (f.account) parts.push(`account_id = ${lit(f.account)}`);
  if (f.category === '(none)') parts.push('category IS NULL');
  else if (f.category) parts.push(`category = ${lit(f.category)}`);
  const text = f.text.trim();
  if (text) {
    const like = lit(`%${text.replace(/[\\%_]/g, (/** @type {string} */ c) => `\\${c}`)}%`);
    parts.push(`(note ILIKE ${like} OR counterparty ILIKE ${like} OR category ILIKE ${like})`);
  }
  // The range is of the amount's size, spending and income alike.
  const min = num(f.min);
  const max = num(f.max);
  if (min !== null) parts.push(`(amount >= ${min} OR amount <= -${min})`);
  if (max !== null) parts.push(`(amount <= ${max} AND amount >= -${max})`);
  return parts.length ? ` WHERE ${parts.join(' AND ')}` : '';
}

/**
 * @typedef {object} TransactionsState
 * @property {Filter} filter the filter as being edited
 * @property {Filter} applied the filter of the list shown
 * @property {number} page
 * @property {Row[] | null} entries
 * @property {number} total
 * @property {string[]} accounts
 * @property {string[]} categories
 * @property {{ entryId: string, category: string, note: string } | null} editing
 * @property {Row | null} deleting
 * @property {{ day: string, account: string, kind: string, amount: string, category: string, note: string }} adding
 * @property {unknown} error
 * @property {{ what: string, changeId: string } | null} message
 */

/** @extends {Component<import('../types/console').PageProps, TransactionsState>} */
export class TransactionsPage extends Component {
  /** @param {import('../types/console').PageProps} props */
  constructor(props) {
    super(props);
    const month = today(props.settings?.timeZone).slice(0, 7);
    /** @type {TransactionsState} */
    this.state = {
      filter: { ...EMPTY_FILTER, month },
      applied: { ...EMPTY_FILTER, month },
      page: 0,
      entries: null,
      total: 0,
      accounts: [],
      categories: [],
      editing: null,
      deleting: null,
      adding: {
        day: today(props.settings?.timeZone),
        account: '',
        kind: 'spend',
        amount: '',
        category: '',
        note: '',
      },
      error: null,
      message: null,
    };
    /** @param {SubmitEvent} event */
    this.apply = (event) => {
      event.preventDefault();
      this.setState({ applied: { ...this.state.filter }, page: 0 }, () => this.load());
    };
    /** @param {SubmitEvent} event */
    this.add = async (event) => {
      event.preventDefault();
      const a = this.state.adding;
      const amount = num(a.amount);
      if (!amount || Number(amount) <= 0 || !a.account.trim() || !/^\d{4}-\d{2}-\d{2}$/.test(a.day)) {
        this.setState({ error: { message: 'Give a date, an account and an amount above 0.' } });
        return;
      }
      const signed = a.kind === 'income' ? amount : `-${amount}`;
      const currency = this.props.settings?.currency ?? 'USD';
      const sql = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES (TIMESTAMPTZ ${lit(`${a.day} 12:00:00`)}, ${lit(a.account.trim())}, ${signed}, ${lit(currency)}, ${lit(a.kind)}, ${a.category.trim() ? lit(a.category.trim()) : 'NULL'}, ${a.note.trim() ? lit(a.note.trim()) : 'NULL'})`;
      if (await this.save(sql, 'Entry added')) {
        this.setState({ adding: { ...a, amount: '', category: '', note: '' } });
      }
    };
  }

  /** @override */
  componentDidMount() {
    this.loadChoices();
    this.load();
  }

  async loadChoices() {
    try {
      const accounts = await rows(
        'SELECT DISTINCT account_id FROM accounts ORDER BY account_id',
        this.props.workspaceId,
      );
      const categories = await rows(
        'SELECT DISTINCT category FROM ledger_entries WHERE category IS NOT NULL ORDER BY category',
        this.props.workspaceId,
      );
      this.setState({
        accounts: accounts.map((r) => r.account_id),
        categories: categories.map((r) => r.category),
      });
    } catch (error) {
      this.setState({ error });
    }
  }

  async load() {
    const { workspaceId } = this.props;
    if (!workspaceId) return;
    const filter = where(this.state.applied);
    try {
      const [count] = await rows(`SELECT count(*) AS n FROM ledger_entries${filter}`, workspaceId);
      const entries = await rows(
        `SELECT entry_id, ts, account_id, amount, currency, kind, category, counterparty, note FROM ledger_entries${filter} ORDER BY ts DESC, entry_id LIMIT ${PAGE} OFFSET ${this.state.page * PAGE}`,
        workspaceId,
      );
      this.setState({ entries, total: Number(count?.n ?? 0) });
    } catch (error) {
      this.setState({ error });
    }
  }

  /**
   * @param {string} sql
   * @param {string} what
   */
  async save(sql, what) {
    try {
      const { changeId } = await write(sql, this.props.workspaceId);
      this.setState({ error: null, message: { what, changeId }, editing: null, deleting: null });
      await this.load();
      await this.loadChoices();
      return true;
    } catch (error) {
      this.setState({ error, message: null });
      return false;
    }
  }

  /** @param {Row} entry */
  saveEdit(entry) {
    if (!this.state.editing) return Promise.resolve(false);
    const { category, note } = this.state.editing;
    /** @param {string} v */
    const value = (v) => (v.trim() ? lit(v.trim()) : 'NULL');
    return this.save(
      `UPDATE ledger_entries SET category = ${value(category)}, note = ${value(note)} WHERE entry_id = ${lit(entry.entry_id)}`,
      'Entry changed',
    );
  }

  /** In a row being edited, Enter saves and Escape cancels. */
  /**
   * @param {KeyboardEvent} event
   * @param {Row} entry
   */
  editKey(event, entry) {
    if (event.key === 'Enter') {
      event.preventDefault();
      this.saveEdit(entry);
    } else if (event.key === 'Escape') {
      this.setState({ editing: null });
    }
  }

  /** @param {Row} e */
  describe(e) {
    return `${isoDay(e.ts, this.props.settings?.timeZone)} ${e.account_id} ${money(e.amount, e.currency)}`;
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {TransactionsState} state
   */
  render({ workspaceId, settings }, state) {
    if (!workspaceId)
      return html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    const { filter, entries, total, page, editing, deleting, message, error } = state;
    /** @param {keyof Filter} name */
    const setFilter = (name) => (/** @type {import('../types/console').FieldEvent} */ e) =>
      this.setState({ filter: { ...filter, [name]: e.currentTarget.value } });
    const tz = settings?.timeZone;
    return html`
      <form onSubmit=${this.apply} aria-label="Filter transactions">
        <div class="row">
          <div><label for="tx-month">Month</label><input id="tx-month" type="month" value=${filter.month} onInput=${setFilter('month')} /></div>
          <div><label for="tx-account">Account</label>
            <select id="tx-account" value=${filter.account} onChange=${setFilter('account')}>
              <option value="">All accounts</option>
              ${state.accounts.map((/** @type {string} */ a) => html`<option value=${a}>${a}</option>`)}
            </select></div>
          <div><label for="tx-category">Category</label>
            <select id="tx-category" value=${filter.category} onChange=${setFilter('category')}>
              <option value="">All categories</option><option value="(none)">(no category)</option>
              ${state.categories.map((/** @type {string} */ c) => html`<option value=${c}>${c}</option>`)}
            </select></div>
          <div><label for="tx-text">Search</label><input id="tx-text" type="search" value=${filter.text} onInput=${setFilter('text')} placeholder="note, payee, category" /></div>
          <div><label for="tx-min">Amount from</label><input id="tx-min" inputmode="decimal" size="7" value=${filter.min} onInput=${setFilter('min')} /></div>
          <div><label for="tx-max">Amount to</label><input id="tx-max" inputmode="decimal" size="7" value=${filter.max} onInput=${setFilter('max')} /></div>
        </div>
        <button type="submit">Show</button>
        <button type="button" class="secondary" onClick=${() => this.setState({ filter: { ...EMPTY_FILTER }, applied: { ...EMPTY_FILTER }, page: 0 }, () => this.load())}>All transactions</button>
      </form>
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message.what}${message.changeId ? html` (change <a href="#/activity"><${ChangeId} id=${message.changeId} /></a>)` : ''}.<//>` : null}
      ${
        entries === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : entries.length === 0
            ? html`<p>No transactions match.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Transactions ${page * PAGE + 1}–${page * PAGE + entries.length} of ${total}, newest first</caption>
                <thead><tr><th scope="col">Date</th><th scope="col">Account</th><th scope="col" class="num">Amount</th><th scope="col">Category</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
                <tbody>${entries.map((/** @type {Row} */ e) => {
                  const name = this.describe(e);
                  const edit = editing?.entryId === e.entry_id ? editing : null;
                  return html`<tr>
                    <td data-label="Date">${day(e.ts, tz)}</td><td data-label="Account">${e.account_id}</td>
                    <td class="num amount" data-label="Amount">${money(e.amount, e.currency)}</td>
                    ${
                      edit
                        ? html`<td data-label="Category"><input aria-label="Category of ${name}" list="tx-categories" value=${edit.category}
                              onKeyDown=${(/** @type {KeyboardEvent} */ ev) => this.editKey(ev, e)}
                              onInput=${(/** @type {import('../types/console').FieldEvent} */ ev) => this.setState({ editing: { ...edit, category: ev.currentTarget.value } })} /></td>
                            <td data-label="Note"><input aria-label="Note of ${name}" value=${edit.note}
                              onKeyDown=${(/** @type {KeyboardEvent} */ ev) => this.editKey(ev, e)}
                              onInput=${(/** @type {import('../types/console').FieldEvent} */ ev) => this.setState({ editing: { ...edit, note: ev.currentTarget.value } })} /></td>
                            <td class="actions"><button type="button" onClick=${() => this.saveEdit(e)}>Save</button>
                              <button type="button" class="secondary" onClick=${() => this.setState({ editing: null })}>Cancel</button></td>`
                        : html`<td data-label="Category">${e.category ?? (e.kind === 'transfer' ? html`<span class="muted">transfer</span>` : '—')}</td>
                            <td data-label="Note">${e.note ?? ''}${e.counterparty ? html` <span class="muted">${e.counterparty}</span>` : null}</td>
                            <td class="actions">
                              <button type="button" class="secondary" aria-label="Edit ${name}"
                                onClick=${() => this.setState({ editing: { entryId: e.entry_id, category: e.category ?? '', note: e.note ?? '' }, deleting: null })}>Edit</button>
                              <button type="button" class="secondary" aria-label="Delete ${name}"
                                onClick=${() => this.setState({ deleting: e, editing: null })}>Delete</button>
                            </td>`
                    }
                  </tr>`;
                })}</tbody>
              </table></div>
              <div>
                <button type="button" class="secondary" disabled=${page === 0} onClick=${() => this.setState({ page: page - 1 }, () => this.load())}>Newer</button>
                <button type="button" class="secondary" disabled=${(page + 1) * PAGE >= total} onClick=${() => this.setState({ page: page + 1 }, () => this.load())}>Older</button>
              </div>`
      }
      ${
        deleting
          ? html`<div role="alertdialog" aria-labelledby="tx-delete-text" class="notice">
              <p id="tx-delete-text">Delete the entry of ${day(deleting.ts, tz)}, ${deleting.account_id}, ${money(deleting.amount, deleting.currency)}? It can be brought back from Activity.</p>
              <button type="button" class="danger" onClick=${() => this.save(`DELETE FROM ledger_entries WHERE entry_id = ${lit(deleting.entry_id)}`, 'Entry deleted')}>Yes, delete</button>
              <button type="button" class="secondary" onClick=${() => this.setState({ deleting: null })}>Cancel</button>
            </div>`
          : null
      }
      <h2 id="tx-add-heading">Add a transaction</h2>
      <form onSubmit=${this.add} aria-labelledby="tx-add-heading">
        <div class="row">
          <div><label for="add-day">Date</label><input id="add-day" type="date" required value=${state.adding.day}
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, day: e.currentTarget.value } })} /></div>
          <div><label for="add-account">Account</label><input id="add-account" required list="add-accounts" value=${state.adding.account}
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, account: e.currentTarget.value } })} />
            <datalist id="add-accounts">${state.accounts.map((/** @type {string} */ a) => html`<option value=${a} />`)}</datalist></div>
          <div><label for="add-kind">Kind</label><select id="add-kind" value=${state.adding.kind}
            onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, kind: e.currentTarget.value } })}>
            <option value="spend">Spending</option><option value="income">Income</option></select></div>
          <div><label for="add-amount">Amount (${settings?.currency ?? 'USD'})</label><input id="add-amount" required inputmode="decimal" size="9" value=${state.adding.amount}
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, amount: e.currentTarget.value } })} /></div>
          <div><label for="add-category">Category</label><input id="add-category" list="tx-categories" value=${state.adding.category}
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, category: e.currentTarget.value } })} /></div>
          <div><label for="add-note">Note</label><input id="add-note" value=${state.adding.note}
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ adding: { ...state.adding, note: e.currentTarget.value } })} /></div>
        </div>
        <button type="submit">Add transaction</button>
      </form>
      <datalist id="tx-categories">${state.categories.map((/** @type {string} */ c) => html`<option value=${c} />`)}</datalist>
    `;
  }
}
