// SQL: read with /sql/query; writes go through a dry run first, then an explicit confirmation.
import { api, newIdempotencyKey } from '../api.js';
import { ROUTES } from '../routes.js';
import { ChangeId, Component, DataTable, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

/** @typedef {import('../types/console').Json} Json */

/** @param {{ result: Json }} props */
export function StatementResults({ result }) {
  return html`${result.statements.map(
    (/** @type {Json} */ s) => html`<section aria-label="Statement ${s.index + 1}">
      <h3>${s.command} · ${s.rowCount} row${s.rowCount === 1 ? '' : 's'}</h3>
      ${
        s.truncated
          ? html`<div class="notice" role="status"><strong>Truncated:</strong> showing ${s.returnedRowCount} of
              ${s.totalRowCount} rows (the server's row cap). Narrow the query or page with LIMIT/OFFSET.</div>`
          : null
      }
      ${
        s.columns.length > 0
          ? html`<${DataTable} caption="Result of statement ${s.index + 1}" columns=${s.columns.map((/** @type {Json} */ c) => c.name)} rows=${s.rows} />`
          : null
      }
    </section>`,
  )}`;
}

/**
 * @typedef {object} SqlState
 * @property {string} sql
 * @property {Json | null} result
 * @property {unknown} error
 * @property {{ sql: string, idempotencyKey: string } | null} pending
 */

/** @extends {Component<import('../types/console').PageProps, SqlState>} */
export class SqlPage extends Component {
  constructor() {
    super();
    /** @type {SqlState} */
    this.state = {
      sql: 'SELECT * FROM ledger_entries ORDER BY ts DESC LIMIT 20',
      result: null,
      error: null,
      pending: null,
    };
    this.query = () => this.run(ROUTES.sqlQuery, {});
    this.dryRun = () => this.run(ROUTES.sqlExecute, { dryRun: true });
    this.confirm = () => this.run(ROUTES.sqlExecute, {}, this.state.pending?.idempotencyKey);
  }

  /**
   * @param {import('../api.js').Route} route
   * @param {{ dryRun?: boolean }} extra
   * @param {string} [idempotencyKey]
   */
  async run(route, extra, idempotencyKey) {
    const sql = this.state.sql;
    try {
      const result = await api(route, {
        body: { sql, ...extra },
        workspaceId: this.props.workspaceId,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
      const pending = extra.dryRun ? { sql, idempotencyKey: newIdempotencyKey() } : null;
      this.setState({ result, error: null, pending });
    } catch (error) {
      this.setState({ error, result: null, pending: null });
    }
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {SqlState} state
   */
  render({ workspaceId }, { sql, result, error, pending }) {
    if (!workspaceId)
      return html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`;
    return html`
      <p class="muted">For people who know SQL: read the workspace's tables with “Run query”; a change is
        shown first as a dry run and saved only when you confirm it.</p>
      <label for="sql-text">SQL</label>
      <textarea id="sql-text" spellcheck="false" value=${sql}
        onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ sql: e.currentTarget.value, pending: null })}></textarea>
      <div>
        <button type="button" onClick=${this.query}>Run query</button>
        <button type="button" class="secondary" onClick=${this.dryRun}>Dry run write</button>
      </div>
      <${Problem} error=${error} />
      ${
        pending && pending.sql === sql
          ? html`<div class="notice" role="status">
              <p><strong>Dry run:</strong> nothing was changed. Check the rows below, then confirm to commit.</p>
              <button type="button" class="danger" onClick=${this.confirm}>Confirm write</button>
            </div>`
          : null
      }
      ${result?.committed && result.statements.some((/** @type {Json} */ s) => s.command !== 'SELECT') ? html`<${Notice} kind="success">Saved: the change is in Activity${result.changeId ? html` as change <${ChangeId} id=${result.changeId} />` : ''}.<//>` : null}
      ${result ? html`<${StatementResults} result=${result} />` : null}
    `;
  }
}
