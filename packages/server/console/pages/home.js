// Home: this month in the selected workspace — spending against budget per category (in the reporting
// currency), balances per account, the last 10 entries, and notices (old exchange rates, invitations to me).
import { api } from '../api.js';
import { BarChart } from '../chart.js';
import { count, day, money, month, monthStart, today } from '../format.js';
import { ROUTES } from '../routes.js';
import { rows } from '../sql.js';
import { Component, html, NeedsWorkspace, Problem } from '../ui.js';

/**
 * @typedef {import('../types/console').Json} Json
 * @typedef {{ from: string, budget: Json, spend: Json, balances: Json, recent: Json[] }} HomeData
 * @typedef {{ data: HomeData | null, invitations: Json[] | null, error: unknown }} HomeState
 */

/** @extends {Component<import('../types/console').PageProps, HomeState>} */
export class HomePage extends Component {
  constructor() {
    super();
    /** @type {HomeState} */
    this.state = { data: null, invitations: null, error: null };
  }

  /** @override */
  componentDidMount() {
    this.load();
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} previous
   */
  componentDidUpdate(previous) {
    if (previous.settings !== this.props.settings) this.load();
  }

  async load() {
    const { workspaceId, settings } = this.props;
    // Invitations first: a person with no workspace yet has been invited, most likely.
    try {
      const { invitations } = await api(ROUTES.invitations);
      this.setState({ invitations });
    } catch (error) {
      this.setState({ error });
    }
    if (!workspaceId || !settings) return;
    const to = today(settings.timeZone);
    const from = monthStart(to);
    const options = { query: { from, to }, workspaceId };
    try {
      // One after another: the session has the limits of any key (two SQL requests in flight).
      const budget = await api(ROUTES.report, { params: { kind: 'budget_vs_actual' }, ...options });
      const spend = await api(ROUTES.report, { params: { kind: 'spend_by_category' }, ...options });
      const balances = await api(ROUTES.report, { params: { kind: 'balances' }, ...options });
      const recent = await rows(
        'SELECT entry_id, ts, account_id, amount, currency, kind, category, note FROM ledger_entries ORDER BY ts DESC, entry_id LIMIT 10',
        workspaceId,
      );
      this.setState({ data: { from, budget, spend, balances, recent }, error: null });
    } catch (error) {
      this.setState({ error });
    }
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {HomeState} state
   */
  render({ workspaceId, workspace, settings }, { data, invitations, error }) {
    const invited = invitations?.length
      ? html`<div class="notice" role="status">
          ${invitations.map((/** @type {Json} */ i) => html`<p>${i.invitedBy.email} invited you to “${i.workspaceName}”.</p>`)}
          <p><a href="#/members">Accept or decline on the Members page</a></p>
        </div>`
      : null;
    if (!workspaceId)
      return html`${invited}<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    return html`
      ${invited}
      <${Problem} error=${error} />
      ${data === null || !settings ? (error ? null : html`<p>Loading…</p>`) : this.dashboard(data, workspace, settings)}
    `;
  }

  /**
   * @param {HomeData} data
   * @param {import('../types/console').Workspace | null} workspace
   * @param {import('../types/console').Settings} settings
   */
  dashboard({ from, budget, spend, balances, recent }, workspace, settings) {
    const currency = budget.currency;
    const stale = budget.fx.stale || balances.fx.stale;
    const rateDay = budget.fx.newestRateDate ?? balances.fx.newestRateDate;
    // Spending per category this month against its budget; categories without a budget are planned at 0.
    /** @type {Map<string, { category: string, planned: number, actual: number }>} */
    const lines = new Map();
    for (const r of budget.rows.filter(
      (/** @type {Json} */ r) => r.direction === 'spend' && r.currency === currency,
    )) {
      lines.set(r.category, {
        category: r.category,
        planned: Number(r.planned_value),
        actual: Number(r.actual),
      });
    }
    for (const r of spend.rows.filter((/** @type {Json} */ r) => r.currency === currency && r.category)) {
      if (!lines.has(r.category))
        lines.set(r.category, { category: r.category, planned: 0, actual: Number(r.spent) });
    }
    const categories = [...lines.values()].sort((a, b) => b.actual - a.actual);
    return html`
      <p class="lead">${workspace?.name ?? ''}: ${month(from)}, amounts in ${currency}, dates in ${settings.timeZone}.</p>
      ${
        stale
          ? html`<div class="notice" role="status">
              <p>Amounts in other currencies are converted with exchange rates from ${rateDay ? day(rateDay) : 'more than a week ago'}, the newest this server has, so they may be off.</p>
              <p>To get current rates, whoever runs this server runs <code>expense-server fx sync</code> once, or starts
                it with <code>--fx-sync</code> to fetch them every day.</p>
            </div>`
          : null
      }
      <section aria-labelledby="home-budget">
        <h2 id="home-budget">Spending against budget this month</h2>
        ${
          categories.length === 0
            ? html`<p>Nothing spent and no budget set for ${month(from)} yet. <a href="#/budgets">Set a budget</a>.</p>`
            : html`<${BarChart} title="Spending against budget" labels=${categories.map((c) => c.category)}
                  series=${[
                    { name: 'Budget', values: categories.map((c) => c.planned) },
                    { name: 'Spent', values: categories.map((c) => c.actual) },
                  ]} currency=${currency} />
                <div class="table-box" tabindex="0"><table>
                  <caption class="muted">Spending against budget, ${month(from)}</caption>
                  <thead><tr><th scope="col">Category</th><th scope="col" class="num">Budget</th><th scope="col" class="num">Spent</th><th scope="col" class="num">Left</th></tr></thead>
                  <tbody>${categories.map(
                    (c) => html`<tr class=${c.actual > c.planned ? 'over' : ''}>
                      <td>${c.category}</td><td class="num" data-label="Budget">${c.planned ? money(c.planned, currency) : '—'}</td>
                      <td class="num" data-label="Spent">${money(c.actual, currency)}</td>
                      <td class="num amount" data-label="Left">${c.planned ? money(c.planned - c.actual, currency) : '—'}</td>
                    </tr>`,
                  )}</tbody>
                </table></div>`
        }
      </section>
      <section aria-labelledby="home-balances">
        <h2 id="home-balances">Balances</h2>
        ${
          balances.rows.length === 0
            ? html`<p>No accounts yet: they appear with their first entry.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Balance per account, today</caption>
                <thead><tr><th scope="col">Account</th><th scope="col" class="num">Balance</th><th scope="col" class="num">This month</th></tr></thead>
                <tbody>${balances.rows.map(
                  (
                    /** @type {Json} */ b,
                  ) => html`<tr><td>${b.account_id}</td><td class="num amount" data-label="Balance">${money(b.balance, b.currency)}</td>
                    <td class="num" data-label="This month">${money(b.change, b.currency)}</td></tr>`,
                )}</tbody>
              </table></div>`
        }
      </section>
      <section aria-labelledby="home-recent">
        <h2 id="home-recent">Latest entries</h2>
        ${
          recent.length === 0
            ? html`<p>No entries yet.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">The last ${count(recent.length, 'entry', 'entries')}</caption>
                <thead><tr><th scope="col">Date</th><th scope="col">Account</th><th scope="col">Category</th><th scope="col">Note</th><th scope="col" class="num">Amount</th></tr></thead>
                <tbody>${recent.map(
                  (
                    e,
                  ) => html`<tr><td data-label="Date">${day(e.ts, settings.timeZone)}</td><td data-label="Account">${e.account_id}</td>
                    <td data-label="Category">${e.category ?? (e.kind === 'transfer' ? 'transfer' : '—')}</td><td data-label="Note">${e.note ?? ''}</td>
                    <td class="num amount" data-label="Amount">${money(e.amount, e.currency)}</td></tr>`,
                )}</tbody>
              </table></div>
              <p><a href="#/transactions">All transactions</a></p>`
        }
      </section>
    `;
  }
}
