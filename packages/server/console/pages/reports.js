// Reports: GET /v1/reports/{kind} (the same data as the MCP `report` tool and `expense report`), in one currency
// per report, so one chart never mixes currencies; a uPlot chart, a table, and the report's notes.
import uPlot from '../../vendor/uPlot.esm.js';
import { api } from '../api.js';
import { Component, createRef, DataTable, html, NeedsWorkspace, Problem } from '../ui.js';

const KINDS = {
  spend_by_category: {
    title: 'Spend by category',
    label: (r) => r.category,
    values: ['spent'],
    bars: true,
  },
  budget_vs_actual: {
    title: 'Budget vs actual',
    label: (r) => `${String(r.budget_month).slice(0, 7)} ${r.category}`,
    values: ['planned_value', 'actual'],
    bars: false,
  },
  balances: {
    title: 'Balances',
    label: (r) => r.account_id,
    values: ['balance'],
    bars: true,
  },
  monthly_trend: {
    title: 'Monthly trend',
    label: (r) => String(r.month).slice(0, 7),
    values: ['income', 'spent', 'net'],
    bars: false,
  },
};

const COLOURS = ['#0b5cad', '#c2571a', '#1b6e3a'];

function isoDay(date) {
  return date.toISOString().slice(0, 10);
}

function defaultFrom() {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - 5);
  return isoDay(d);
}

export class ReportsPage extends Component {
  constructor() {
    super();
    this.state = {
      kind: 'spend_by_category',
      from: defaultFrom(),
      to: isoDay(new Date()),
      currency: '',
      result: null,
      error: null,
    };
    this.show = async (event) => {
      event.preventDefault();
      const { kind, from, to, currency } = this.state;
      try {
        const query = new URLSearchParams({ from, to });
        const code = currency.trim().toUpperCase();
        if (code) query.set('currency', code);
        const data = await api('GET', `/reports/${kind}?${query}`, { workspaceId: this.props.workspaceId });
        this.setState({ result: data, error: null });
      } catch (error) {
        this.setState({ error, result: null });
      }
    };
  }

  render({ workspaceId }, { kind, from, to, currency, result, error }) {
    if (!workspaceId) return html`<${NeedsWorkspace} />`;
    const set = (name) => (e) => this.setState({ [name]: e.currentTarget.value });
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
            <label for="report-currency">Currency (default: the workspace's reporting currency)</label>
            <input id="report-currency" value=${currency} maxlength="3" size="5" onInput=${set('currency')} />
          </div>
        </div>
        <button type="submit">Show report</button>
      </form>
      <${Problem} error=${error} />
      ${result ? html`<${Report} report=${result} />` : null}
    `;
  }
}

function Report({ report }) {
  const def = KINDS[report.kind];
  const { rows, fx, notes } = report;
  const rate = fx.newestRateDate ? ` Newest exchange rate used: ${fx.newestRateDate}.` : '';
  const noteList = notes.length ? html`<ul>${notes.map((n) => html`<li>${n}</li>`)}</ul>` : null;
  if (rows.length === 0) return html`${noteList}<p>No data in this range.</p>`;
  return html`<section aria-label="${def.title} report">
    <h2>${def.title} in ${report.currency}</h2>
    <p>Amounts in ${report.currency}, converted by the rate of each entry's day.${rate}</p>
    ${noteList}
    <${Chart} key=${report.kind} def=${def} rows=${rows} />
    <${DataTable} caption="${def.title} (data table)" columns=${Object.keys(rows[0])} rows=${rows} />
  </section>`;
}

class Chart extends Component {
  constructor() {
    super();
    this.container = createRef();
  }

  componentDidMount() {
    this.draw();
  }

  componentDidUpdate() {
    this.draw();
  }

  componentWillUnmount() {
    this.plot?.destroy();
  }

  draw() {
    this.plot?.destroy();
    const { def, rows } = this.props;
    const labels = rows.map(def.label);
    const data = [
      rows.map((_, i) => i),
      ...def.values.map((v) => rows.map((r) => (r[v] === null ? null : Number(r[v])))),
    ];
    const bars = def.bars ? uPlot.paths.bars({ size: [0.6, 80] }) : undefined;
    const options = {
      width: Math.max(320, Math.min(900, this.container.current.clientWidth || 720)),
      height: 280,
      scales: { x: { time: false } },
      axes: [
        {
          values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? (labels[t] ?? '') : '')),
          space: 60,
        },
        {},
      ],
      series: [
        { label: 'item', value: (_u, i) => (i === null ? '' : (labels[i] ?? '')) },
        ...def.values.map((v, i) => ({
          label: v,
          stroke: COLOURS[i],
          fill: def.bars ? `${COLOURS[i]}88` : undefined,
          width: 2,
          ...(bars ? { paths: bars, points: { show: false } } : {}),
        })),
      ],
    };
    this.plot = new uPlot(options, data, this.container.current);
  }

  render({ def }) {
    return html`<div ref=${this.container} class="chart" role="img" aria-label="${def.title} chart (the table below has the same data)"></div>`;
  }
}
