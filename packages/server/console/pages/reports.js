// Reports: GET /v1/reports/{kind} (the same data as the MCP `report` tool and `expense report`), in one currency
// per report, so a chart never mixes currencies: a grouped bar chart, a table, and notes in the console's words
// (the report's own notes are written for agents).
import { api } from '../api.js';
import { BarChart } from '../chart.js';
import { count, day, money, month, monthStart, today } from '../format.js';
import { ROUTES } from '../routes.js';
import { Component, html, NeedsWorkspace, Problem } from '../ui.js';

/**
 * @typedef {import('../types/console').Json} Json
 * @typedef {[title: string, cell: (r: Json, currency: string, timeZone?: string) => unknown, cls?: string]} Column
 * @typedef {object} Kind
 * @property {string} title
 * @property {(r: Json, many: boolean) => string} group a bar group's label
 * @property {[column: string, name: string][]} series
 * @property {Column[]} columns
 */

/** @type {Record<string, Kind>} */
const KINDS = {
  spend_by_category: {
    title: 'Spend by category',
    group: (r) => r.category,
    series: [['spent', 'Spent']],
    columns: [
      ['Category', (r) => r.category],
      ['Spent', (r, c) => money(r.spent, c), 'num'],
      ['Entries', (r) => r.entries, 'num'],
    ],
  },
  budget_vs_actual: {
    title: 'Budget vs actual',
    group: (r, many) =>
      `${r.category}${r.direction === 'income' ? ' (income)' : ''}${many ? ` · ${month(r.budget_month)}` : ''}`,
    series: [
      ['planned_value', 'Planned'],
      ['actual', 'Actual'],
    ],
    columns: [
      ['Month', (r) => month(r.budget_month)],
      ['Category', (r) => r.category],
      ['Direction', (r) => r.direction],
      ['Planned', (r, c) => money(r.planned_value, c), 'num'],
      ['Actual', (r, c) => money(r.actual, c), 'num'],
    ],
  },
  balances: {
    title: 'Balances',
    group: (r) => r.account_id,
    series: [['balance', 'Balance']],
    columns: [
      ['Account', (r) => r.account_id],
      ['Balance', (r, c) => money(r.balance, c), 'num'],
      ['Change in range', (r, c) => money(r.change, c), 'num'],
      ['Entries', (r) => r.entries, 'num'],
      ['Last entry', (r, _c, tz) => day(r.last_ts, tz)],
    ],
  },
  monthly_trend: {
    title: 'Monthly trend',
    group: (r) => month(r.month),
    series: [
      ['income', 'Income'],
      ['spent', 'Spent'],
      ['net', 'Net'],
    ],
    columns: [
      ['Month', (r) => month(r.month)],
      ['Income', (r, c) => money(r.income, c), 'num'],
      ['Spent', (r, c) => money(r.spent, c), 'num'],
      ['Net', (r, c) => money(r.net, c), 'num'],
    ],
  },
};

/**
 * @typedef {{ kind: string, from: string, to: string, currency: string, result: Json | null, error: unknown }} ReportsState
 */

/** @extends {Component<import('../types/console').PageProps, ReportsState>} */
export class ReportsPage extends Component {
  /** @param {import('../types/console').PageProps} props */
  constructor(props) {
    super(props);
    const to = today(props.settings?.timeZone);
    /** @type {ReportsState} */
    this.state = {
      kind: 'spend_by_category',
      from: monthStart(to, -5),
      to,
      currency: '',
      result: null,
      error: null,
    };
    /** @param {SubmitEvent} event */
    this.show = async (event) => {
      event.preventDefault();
      const { kind, from, to, currency } = this.state;
      try {
        const code = currency.trim().toUpperCase();
        const data = await api(ROUTES.report, {
          params: { kind },
          query: { from, to, currency: code || undefined },
          workspaceId: this.props.workspaceId,
        });
        this.setState({ result: data, error: null });
      } catch (error) {
        this.setState({ error, result: null });
      }
    };
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {ReportsState} state
   */
  render({ workspaceId, settings }, { kind, from, to, currency, result, error }) {
    if (!workspaceId)
      return html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    /** @param {'kind' | 'from' | 'to' | 'currency'} name */
    const set = (name) => (/** @type {import('../types/console').FieldEvent} */ e) =>
      this.setState(/** @type {Pick<ReportsState, typeof name>} */ ({ [name]: e.currentTarget.value }));
    const reporting = settings?.currency ?? 'the workspace’s reporting currency';
    return html`
      <form onSubmit=${this.show}>
        <div class="row">
          <div>
            <label for="report-kind">Report</label>
            <select id="report-kind" value=${kind} onChange=${set('kind')}>
              ${Object.entries(KINDS).map(([value, k]) => html`<option value=${value}>${k.title}</option>`)}
            </select>
          </div>
          <div><label for="report-from">From</label><input id="report-from" type="date" value=${from} onInput=${set('from')} /></div>
          <div><label for="report-to">To</label><input id="report-to" type="date" value=${to} onInput=${set('to')} /></div>
          <div>
            <label for="report-currency">Currency (empty: ${reporting})</label>
            <input id="report-currency" value=${currency} maxlength="3" size="5" onInput=${set('currency')} />
          </div>
        </div>
        <button type="submit">Show report</button>
      </form>
      <${Problem} error=${error} />
      ${result ? html`<${Report} report=${result} timeZone=${settings?.timeZone} />` : null}
    `;
  }
}

/** @param {{ report: Json, timeZone: string | undefined }} props */
function Report({ report, timeZone }) {
  const def = KINDS[report.kind];
  if (!def) return null;
  const { rows, fx, currency } = report;
  const rate = fx.newestRateDate ? ` Newest exchange rate used: ${day(fx.newestRateDate)}.` : '';
  const missing = fx.unconverted.count;
  const unconverted = missing
    ? html`<p class="notice" role="status">${count(missing, 'amount', 'amounts')} in ${fx.unconverted.currencies.join(', ')} had
        no exchange rate into ${currency} for ${missing === 1 ? 'its' : 'their'} day, so ${missing === 1 ? 'it is' : 'they are'} left out of the sums.</p>`
    : null;
  if (rows.length === 0) {
    const none =
      report.kind === 'budget_vs_actual'
        ? html`<p>No budget is set from ${day(report.from)} to ${day(report.to)}. <a href="#/budgets">Set one on Budgets</a>.</p>`
        : html`<p>Nothing was recorded from ${day(report.from)} to ${day(report.to)}.</p>`;
    return html`${unconverted}${none}`;
  }
  // One currency per chart: rows left in their own currency (no exchange rate) are only in the table.
  const charted = rows.filter((/** @type {Json} */ r) => !r.currency || r.currency === currency);
  const many = new Set(rows.map((/** @type {Json} */ r) => r.budget_month)).size > 1;
  const labels = charted.map((/** @type {Json} */ r) => def.group(r, many));
  const series = def.series.map(([column, name]) => ({
    name,
    values: charted.map((/** @type {Json} */ r) => Number(r[column])),
  }));
  const others = rows.length - charted.length;
  return html`<section aria-label="${def.title} report">
    <h2>${def.title} in ${currency}, ${day(report.from)} – ${day(report.to)}</h2>
    <p>Other currencies are converted to ${currency} at the rate of each entry's day.${rate}</p>
    ${fx.stale ? html`<p class="notice" role="status">The exchange rates are more than a week old, so amounts converted from other currencies may be off.</p>` : null}
    ${others ? html`<p class="notice" role="status">${others} row${others === 1 ? '' : 's'} had no exchange rate to ${currency}: they are in the table in their own currency, not in the chart.</p>` : null}
    ${unconverted}
    ${charted.length ? html`<${BarChart} key=${report.kind} title=${def.title} labels=${labels} series=${series} currency=${currency} />` : null}
    <div class="table-box" tabindex="0">
      <table>
        <caption class="muted">${def.title} (data table)</caption>
        <thead><tr>${def.columns.map(([name, , cls]) => html`<th scope="col" class=${cls ?? ''}>${name}</th>`)}</tr></thead>
        <tbody>
          ${rows.map(
            (/** @type {Json} */ r) =>
              html`<tr>${def.columns.map(([name, cell, cls], i) => html`<td class=${cls === 'num' ? 'num amount' : (cls ?? '')} data-label=${i === 0 ? undefined : name}>${cell(r, r.currency ?? currency, timeZone)}</td>`)}</tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
