// Activity: the change history of the selected workspace (GET /changes), with a revert through a dry run.
import { api, newIdempotencyKey } from '../api.js';
import { dateTime } from '../format.js';
import { Component, DataTable, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

function rowsOf(change) {
  return change.statements.map((s) => `${s.command} ${s.table}: ${s.rowCount}`).join(', ');
}

export class ActivityPage extends Component {
  constructor() {
    super();
    this.state = { changes: null, error: null, preview: null, message: null };
  }

  componentDidMount() {
    this.load();
  }

  async load() {
    if (!this.props.workspaceId) return;
    try {
      const { changes } = await api('GET', '/changes?limit=50', { workspaceId: this.props.workspaceId });
      this.setState({ changes });
    } catch (error) {
      this.setState({ error });
    }
  }

  async revert(change, dryRun) {
    try {
      const result = await api('POST', `/changes/${change.changeId}/revert`, {
        body: dryRun ? { dryRun: true } : {},
        workspaceId: this.props.workspaceId,
        ...(dryRun ? {} : { idempotencyKey: this.state.preview.idempotencyKey }),
      });
      if (dryRun)
        this.setState({ preview: { change, result, idempotencyKey: newIdempotencyKey() }, error: null });
      else {
        this.setState({
          preview: null,
          error: null,
          message: `Change reverted (as change ${result.changeId}).`,
        });
        await this.load();
      }
    } catch (error) {
      this.setState({ error, preview: null });
    }
  }

  render({ workspaceId }, { changes, error, preview, message }) {
    if (!workspaceId) return html`<${NeedsWorkspace} />`;
    return html`
      <p class="muted">Every committed write, by whom, with its rows before and after; kept 90 days.</p>
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message}<//>` : null}
      ${preview ? this.previewBlock(preview) : null}
      ${
        changes === null
          ? html`<p>Loading…</p>`
          : changes.length === 0
            ? html`<p>No changes yet.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Changes, newest first</caption>
                <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Rows</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  ${changes.map(
                    (c) => html`<tr>
                      <td>${dateTime(c.at, this.props.settings?.timeZone)}</td>
                      <td>${c.by.email ?? '—'}${c.by.label ? html` <span class="muted">(${c.by.label})</span>` : null}</td>
                      <td><code>${c.sql.length > 120 ? `${c.sql.slice(0, 120)}…` : c.sql}</code></td>
                      <td>${rowsOf(c)}</td>
                      <td>${
                        c.revertedBy
                          ? html`<span class="muted">reverted</span>`
                          : html`<button type="button" class="secondary" onClick=${() => this.revert(c, true)}>Revert…</button>`
                      }</td>
                    </tr>`,
                  )}
                </tbody>
              </table></div>`
      }
    `;
  }

  previewBlock({ change, result }) {
    const rows = result.rows.map((r) => ({
      table: r.table,
      key: JSON.stringify(r.key),
      now: r.before ? JSON.stringify(r.before) : '(absent)',
      after: r.after ? JSON.stringify(r.after) : '(absent)',
    }));
    return html`<div class="notice" role="status">
      <p><strong>Dry run of the revert:</strong> nothing was changed yet.</p>
      <pre><code>${result.sql}</code></pre>
      <${DataTable} caption="Rows the revert restores" columns=${['table', 'key', 'now', 'after']} rows=${rows} />
      <button type="button" class="danger" onClick=${() => this.revert(change, false)}>Confirm revert</button>
      <button type="button" class="secondary" onClick=${() => this.setState({ preview: null })}>Cancel</button>
    </div>`;
  }
}
