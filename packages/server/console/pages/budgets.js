// Budgets: one month's lines (category × planned, actual, remaining), planned amounts edited in place, new
// lines, and "copy last month". Lines are budget_lines rows; actuals come from the budget_vs_actual report.
import { api } from '../api.js';
import { money, month, monthEnd, monthStart, today } from '../format.js';
import { ROUTES } from '../routes.js';
import { lit, num, rows, write } from '../sql.js';
import { ChangeId, Component, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

/**
 * @typedef {import('../types/console').Row} Row
 * @typedef {object} BudgetsState
 * @property {string} month "YYYY-MM"
 * @property {Row[] | null} lines
 * @property {Record<string, string>} edits planned amounts being edited, by line_id
 * @property {string} category
 * @property {string} direction
 * @property {string} planned
 * @property {unknown} error
 * @property {{ what: string, changeId?: string | null } | null} message
 * @property {string} [reportCurrency]
 * @property {number} copyable lines of the month before that this month lacks (the copy button shows while any)
 */

/** @extends {Component<import('../types/console').PageProps, BudgetsState>} */
export class BudgetsPage extends Component {
  /** @param {import('../types/console').PageProps} props */
  constructor(props) {
    super(props);
    /** @type {BudgetsState} */
    this.state = {
      month: monthStart(today(props.settings?.timeZone)).slice(0, 7),
      lines: null,
      edits: {},
      category: '',
      direction: 'spend',
      planned: '',
      error: null,
      message: null,
      copyable: 0,
    };
    /** @param {SubmitEvent} event */
    this.add = async (event) => {
      event.preventDefault();
      const planned = num(this.state.planned);
      const category = this.state.category.trim();
      if (!planned || Number(planned) <= 0 || !category) {
        this.setState({ error: { message: 'Give a category and a planned amount above 0.' } });
        return;
      }
      await this.save(
        `INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE ${lit(this.first())}, ${lit(this.state.direction)}, ${lit(category)}, ${lit(this.currency())}, ${planned})`,
        `Budget for ${category} added`,
        { category: '', planned: '' },
      );
    };
    this.copy = async () => {
      const previous = monthStart(this.first(), -1);
      try {
        const before = await rows(
          `SELECT direction, category, currency, planned_value, note FROM budget_lines WHERE budget_month = DATE ${lit(previous)} ORDER BY direction, category`,
          this.props.workspaceId,
        );
        const have = new Set((this.state.lines ?? []).map((l) => `${l.direction} ${l.category}`));
        const missing = before.filter((l) => !have.has(`${l.direction} ${l.category}`));
        if (missing.length === 0) {
          this.setState({
            error: null,
            message: {
              what:
                before.length === 0
                  ? `${month(previous)} has no budget to copy`
                  : `Every line of ${month(previous)} is already in ${month(this.first())}`,
            },
          });
          return;
        }
        const values = missing
          .map(
            (l) =>
              `(DATE ${lit(this.first())}, ${lit(l.direction)}, ${lit(l.category)}, ${lit(l.currency)}, ${num(l.planned_value)}, ${l.note === null ? 'NULL' : lit(l.note)})`,
          )
          .join(', ');
        await this.save(
          `INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value, note) VALUES ${values}`,
          `${missing.length} line${missing.length === 1 ? '' : 's'} copied from ${month(previous)}`,
        );
      } catch (error) {
        this.setState({ error, message: null });
      }
    };
  }

  /** @override */
  componentDidMount() {
    this.load();
  }

  first() {
    return `${this.state.month}-01`;
  }

  currency() {
    return this.props.settings?.currency ?? 'USD';
  }

  async load() {
    const { workspaceId } = this.props;
    if (!workspaceId || !/^\d{4}-\d{2}$/.test(this.state.month)) return;
    const first = this.first();
    try {
      const lines = await rows(
        `SELECT line_id, direction, category, currency, planned_value FROM budget_lines WHERE budget_month = DATE ${lit(first)} ORDER BY direction DESC, category`,
        workspaceId,
      );
      const before = await rows(
        `SELECT direction, category FROM budget_lines WHERE budget_month = DATE ${lit(monthStart(first, -1))}`,
        workspaceId,
      );
      const have = new Set(lines.map((l) => `${l.direction} ${l.category}`));
      const report = await api(ROUTES.report, {
        params: { kind: 'budget_vs_actual' },
        query: { from: first, to: monthEnd(first), currency: this.currency() },
        workspaceId,
      });
      /** @type {Map<string, string | null>} */
      const actual = new Map(
        report.rows.map((/** @type {Row} */ r) => [`${r.direction} ${r.category}`, r.actual]),
      );
      this.setState({
        lines: lines.map((l) => ({ ...l, actual: actual.get(`${l.direction} ${l.category}`) ?? null })),
        edits: {},
        reportCurrency: report.currency,
        copyable: before.filter((l) => !have.has(`${l.direction} ${l.category}`)).length,
      });
    } catch (error) {
      this.setState({ error });
    }
  }

  /**
   * @param {string} sql
   * @param {string} what
   * @param {Partial<BudgetsState>} [reset]
   */
  async save(sql, what, reset = {}) {
    try {
      const { changeId } = await write(sql, this.props.workspaceId);
      this.setState({ ...reset, error: null, message: { what, changeId } });
      await this.load();
    } catch (error) {
      this.setState({ error, message: null });
    }
  }

  /** @param {Row} line */
  async update(line) {
    const planned = num(this.state.edits[line.line_id]);
    if (!planned || Number(planned) <= 0) {
      this.setState({
        error: { message: `The planned amount for ${line.category} must be a number above 0.` },
      });
      return;
    }
    await this.save(
      `UPDATE budget_lines SET planned_value = ${planned} WHERE line_id = ${lit(line.line_id)}`,
      `Budget for ${line.category} set to ${money(planned, line.currency)}`,
    );
  }

  /** @param {Row} line */
  async remove(line) {
    await this.save(
      `DELETE FROM budget_lines WHERE line_id = ${lit(line.line_id)}`,
      `Budget line ${line.category} deleted`,
    );
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {BudgetsState} state
   */
  render({ workspaceId }, state) {
    if (!workspaceId)
      return html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    const { lines, edits, message, error } = state;
    const m = this.first();
    return html`
      <form class="row" onSubmit=${(/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        this.load();
      }}>
        <div>
          <label for="budget-month">Month</label>
          <input id="budget-month" type="month" value=${state.month} required
            onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ month: e.currentTarget.value, lines: null, message: null }, () => this.load())} />
        </div>
        <button type="button" class="secondary" onClick=${() => this.setState({ month: monthStart(m, -1).slice(0, 7), lines: null, message: null }, () => this.load())}>Previous month</button>
        <button type="button" class="secondary" onClick=${() => this.setState({ month: monthStart(m, 1).slice(0, 7), lines: null, message: null }, () => this.load())}>Next month</button>
      </form>
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message.what}${message.changeId ? html` (change <a href="#/activity"><${ChangeId} id=${message.changeId} /></a>)` : ''}.<//>` : null}
      <h2>Budget for ${month(m)}</h2>
      ${
        lines === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : lines.length === 0
            ? html`<p>No budget for ${month(m)} yet.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Budget lines of ${month(m)}; actual and remaining in ${state.reportCurrency}</caption>
                <thead><tr><th scope="col">Category</th><th scope="col" class="num">Planned</th><th scope="col" class="num">Actual</th><th scope="col" class="num">Remaining</th><th scope="col">Actions</th></tr></thead>
                <tbody>${lines.map((l) => {
                  const edited = edits[l.line_id];
                  const remaining = l.actual === null ? null : Number(l.planned_value) - Number(l.actual);
                  return html`<tr class=${remaining !== null && remaining < 0 ? 'over' : ''}>
                    <td>${l.category}${l.direction === 'income' ? html` <span class="muted">(income)</span>` : null}</td>
                    <td class="num" data-label="Planned">
                      <form class="inline" onSubmit=${(/** @type {SubmitEvent} */ e) => {
                        e.preventDefault();
                        this.update(l);
                      }}>
                        <input aria-label="Planned for ${l.category}" inputmode="decimal" size="9" class="num"
                          value=${edited ?? l.planned_value}
                          onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ edits: { ...edits, [l.line_id]: e.currentTarget.value } })} />
                        <span class="muted"> ${l.currency}</span>
                        ${edited !== undefined && edited !== l.planned_value ? html`<button type="submit">Save ${l.category}</button>` : null}
                      </form>
                    </td>
                    <td class="num" data-label="Actual">${money(l.actual, state.reportCurrency)}</td>
                    <td class="num amount" data-label="Remaining">${remaining === null ? '—' : money(remaining, state.reportCurrency)}</td>
                    <td class="actions"><button type="button" class="secondary" onClick=${() => this.remove(l)}>Delete ${l.category}</button></td>
                  </tr>`;
                })}</tbody>
              </table></div>`
      }
      ${
        lines !== null && state.copyable > 0
          ? html`<button type="button" onClick=${this.copy}>Copy ${month(monthStart(m, -1))}’s budget</button>`
          : null
      }
      <h2>Add a budget line</h2>
      <form onSubmit=${this.add}>
        <div class="row">
          <div><label for="budget-category">Category</label>
            <input id="budget-category" value=${state.category} required maxlength="100"
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ category: e.currentTarget.value })} /></div>
          <div><label for="budget-direction">Kind</label>
            <select id="budget-direction" value=${state.direction} onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ direction: e.currentTarget.value })}>
              <option value="spend">Spending</option><option value="income">Income</option>
            </select></div>
          <div><label for="budget-planned">Planned (${this.currency()})</label>
            <input id="budget-planned" inputmode="decimal" value=${state.planned} required size="10"
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ planned: e.currentTarget.value })} /></div>
        </div>
        <button type="submit">Add line</button>
      </form>
    `;
  }
}
