// Workspaces: list, select, create, rename; the selected workspace's settings (reporting currency, time zone);
// its export, and (owners) its deletion after the person types its name.
import { ApiFailure, api } from '../api.js';
import { ExportButtons } from '../export.js';
import { ROUTES } from '../routes.js';
import { Component, html, Notice, Problem } from '../ui.js';
import { LoadingPage } from './page.js';

/**
 * @typedef {import('../types/console').Json} Json
 * @typedef {object} WorkspacesState
 * @property {Json[] | null} workspaces
 * @property {string} name
 * @property {string} newName
 * @property {unknown} error
 * @property {string | null} created
 * @property {string | null} renamed
 * @property {string | null} deleted
 */

/** @extends {LoadingPage<import('../types/console').PageProps, WorkspacesState>} */
export class WorkspacesPage extends LoadingPage {
  constructor() {
    super();
    /** @type {WorkspacesState} */
    this.state = {
      workspaces: null,
      name: '',
      newName: '',
      error: null,
      created: null,
      renamed: null,
      deleted: null,
    };
    /** @param {SubmitEvent} event */
    this.create = async (event) => {
      event.preventDefault();
      await this.attempt(async () => {
        const { workspace } = await api(ROUTES.createWorkspace, { body: { name: this.state.name } });
        await this.props.reloadWorkspaces();
        this.props.selectWorkspace(workspace.workspaceId);
        // Said once it is true: the new workspace is selected (and remembered) before the notice says so.
        this.setState({ name: '', error: null, created: workspace.name, deleted: null });
        await this.load();
      });
    };
    /** @param {SubmitEvent} event */
    this.rename = async (event) => {
      event.preventDefault();
      const workspaceId = this.props.workspaceId;
      if (!workspaceId) return;
      await this.attempt(async () => {
        const { workspace } = await api(ROUTES.renameWorkspace, {
          params: { workspaceId },
          body: { name: this.state.newName },
        });
        this.setState({ newName: '', error: null, created: null, renamed: workspace.name, deleted: null });
        await this.props.reloadWorkspaces();
        await this.load();
      });
    };
    /** The workspaces read again, in the header and here. */
    this.reload = async () => {
      await this.props.reloadWorkspaces();
      await this.load();
    };
    /**
     * After a deletion: the header moves to another workspace (or none) as for a workspace one no longer belongs
     * to, and the page says what happened.
     * @param {string} name
     */
    this.deleted = async (name) => {
      this.setState({ error: null, created: null, renamed: null, deleted: name });
      await this.reload();
      const heading = document.querySelector('main h1');
      if (heading instanceof HTMLElement) heading.focus();
    };
  }

  /** @override */
  load() {
    return this.attempt(async () => {
      const { workspaces } = await api(ROUTES.workspaces);
      this.setState({ workspaces });
    });
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {WorkspacesState} state
   */
  render({ workspaceId, selectWorkspace }, { workspaces, name, newName, error, created, renamed, deleted }) {
    const selected = workspaces?.find((w) => w.workspaceId === workspaceId);
    return html`
      <${Problem} error=${error} />
      ${created ? html`<${Notice} kind="success">Workspace “${created}” created and selected.<//>` : null}
      ${renamed ? html`<${Notice} kind="success">Workspace renamed to “${renamed}”.<//>` : null}
      ${deleted ? html`<${Notice} kind="success">Workspace “${deleted}” was deleted, with all its data and history.<//>` : null}
      ${
        workspaces === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : workspaces.length === 0
            ? html`<p>You are in no workspace yet: create one below, or accept an invitation on
                <a href="#/members">Members</a> if someone invited you.</p>`
            : html`<div class="table-box" tabindex="0"><table>
                <caption class="muted">Your workspaces</caption>
                <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Selected</th></tr></thead>
                <tbody>
                  ${workspaces.map(
                    (/** @type {Json} */ w) => html`<tr>
                      <td>${w.name}</td>
                      <td>${w.role}</td>
                      <td>${
                        w.workspaceId === workspaceId
                          ? html`<strong>selected</strong>`
                          : html`<button type="button" class="secondary" aria-label="Select ${w.name}"
                              onClick=${() => selectWorkspace(w.workspaceId)}>Select</button>`
                      }</td>
                    </tr>`,
                  )}
                </tbody>
              </table></div>`
      }
      <h2>New workspace</h2>
      <form onSubmit=${this.create}>
        <label for="workspace-name">Workspace name</label>
        <input id="workspace-name" value=${name} required maxlength="100"
          onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ name: e.currentTarget.value })} />
        <button type="submit">Create workspace</button>
      </form>
      ${
        selected?.role === 'owner'
          ? html`<h2>Rename “${selected.name}”</h2>
              <form onSubmit=${this.rename}>
                <label for="workspace-new-name">New name</label>
                <input id="workspace-new-name" value=${newName} required maxlength="100"
                  onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ newName: e.currentTarget.value })} />
                <button type="submit">Rename workspace</button>
              </form>`
          : null
      }
      ${workspaceId ? html`<${Settings} workspaceId=${workspaceId} saved=${this.props.reloadSettings} />` : null}
      ${
        selected
          ? html`<h2>Export “${selected.name}”</h2>
              <p>A copy of all of the workspace’s data and its history: one JSON file (which can be restored into a
                workspace), or a zip of CSV files with a manifest, for a spreadsheet.</p>
              <${ExportButtons} key=${selected.workspaceId} workspaceId=${selected.workspaceId} name=${selected.name} />`
          : null
      }
      ${
        selected?.role === 'owner'
          ? html`<${DeleteWorkspace} key=${selected.workspaceId} workspaceId=${selected.workspaceId}
              name=${selected.name} deleted=${this.deleted} reload=${this.reload} />`
          : null
      }
    `;
  }
}

const CURRENCY = /^[A-Z]{3}$/;
const TIME_ZONE = /^[A-Za-z0-9_+\-/]{1,64}$/;

/** Settings live in the workspace_settings relation, read and written through the SQL API like any data. */
/**
 * @typedef {{ workspaceId: string, saved?: () => void }} SettingsProps
 * @typedef {{ currency: string, timeZone: string, loaded: boolean, error: unknown, saved: boolean }} SettingsState
 */

/** @extends {LoadingPage<SettingsProps, SettingsState>} */
class Settings extends LoadingPage {
  constructor() {
    super();
    // Nothing is editable until the stored settings are in: an edit made before would be overwritten by them.
    /** @type {SettingsState} */
    this.state = { currency: 'USD', timeZone: 'UTC', loaded: false, error: null, saved: false };
    /** @param {SubmitEvent} event */
    this.save = async (event) => {
      event.preventDefault();
      const currency = this.state.currency.trim().toUpperCase();
      const timeZone = this.state.timeZone.trim();
      if (!CURRENCY.test(currency) || !TIME_ZONE.test(timeZone)) {
        this.setState({
          error: { message: 'Use a 3-letter currency code and an IANA time zone such as Europe/Berlin.' },
        });
        return;
      }
      // The server creates every workspace's settings row; an older workspace without one gets it inserted.
      const values = `reporting_currency = '${currency}', timezone = '${timeZone}'`;
      const options = { workspaceId: this.props.workspaceId };
      try {
        const updated = await api(ROUTES.sqlExecute, {
          body: { sql: `UPDATE workspace_settings SET ${values}` },
          ...options,
        });
        if (updated.statements[0]?.rowCount === 0) {
          const sql = `INSERT INTO workspace_settings (reporting_currency, timezone) VALUES ('${currency}', '${timeZone}')`;
          await api(ROUTES.sqlExecute, { body: { sql }, ...options });
        }
        this.setState({ error: null, saved: true });
        this.props.saved?.();
      } catch (error) {
        this.setState({ error, saved: false });
      }
    };
  }

  /**
   * @override
   * @param {SettingsProps} previous
   */
  componentDidUpdate(previous) {
    if (previous.workspaceId !== this.props.workspaceId) this.load();
  }

  /** @override */
  load() {
    this.setState({ loaded: false });
    return this.attempt(async () => {
      const result = await api(ROUTES.sqlQuery, {
        body: { sql: 'SELECT reporting_currency, timezone FROM workspace_settings' },
        workspaceId: this.props.workspaceId,
      });
      const row = result.statements[0]?.rows[0];
      this.setState({
        currency: row?.reporting_currency ?? 'USD',
        timeZone: row?.timezone ?? 'UTC',
        loaded: true,
        saved: false,
      });
    });
  }

  /**
   * @override
   * @param {SettingsProps} _props
   * @param {SettingsState} state
   */
  render(_props, { currency, timeZone, loaded, error, saved }) {
    return html`
      <h2>Settings of the selected workspace</h2>
      <${Problem} error=${error} />
      ${saved ? html`<${Notice} kind="success">Settings saved.<//>` : null}
      <form onSubmit=${this.save}>
        <div class="row">
          <div>
            <label for="reporting-currency">Reporting currency</label>
            <input id="reporting-currency" value=${currency} maxlength="3" size="5" disabled=${!loaded}
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ currency: e.currentTarget.value })} />
          </div>
          <div>
            <label for="time-zone">Time zone</label>
            <input id="time-zone" value=${timeZone} maxlength="64" disabled=${!loaded}
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ timeZone: e.currentTarget.value })} />
          </div>
        </div>
        <button type="submit" disabled=${!loaded}>Save settings</button>
      </form>
    `;
  }
}

/**
 * @typedef {object} DeleteProps
 * @property {string} workspaceId
 * @property {string} name
 * @property {(name: string) => Promise<void>} deleted after the deletion
 * @property {() => Promise<void>} reload the workspaces read again (a rename meanwhile)
 * @typedef {{ typed: string, busy: boolean, error: unknown }} DeleteState
 */

/**
 * Deleting the selected workspace (owners): what goes, that it is final, the export offered first, and a typed
 * confirmation: the button works once the workspace's name is typed exactly as it is.
 * @extends {Component<DeleteProps, DeleteState>}
 */
class DeleteWorkspace extends Component {
  constructor() {
    super();
    /** @type {DeleteState} */
    this.state = { typed: '', busy: false, error: null };
    /** @param {SubmitEvent} event */
    this.submit = async (event) => {
      event.preventDefault();
      const { workspaceId, name } = this.props;
      if (this.state.typed !== name || this.state.busy) return;
      this.setState({ busy: true, error: null });
      try {
        await api(ROUTES.deleteWorkspace, {
          params: { workspaceId },
          body: { confirmName: this.state.typed },
        });
      } catch (error) {
        if (error instanceof ApiFailure && error.code === 'confirmation_mismatch') {
          // The button works only for the name shown, so the workspace was renamed meanwhile (another tab or
          // owner): said so, with the catalogue's hint, and the new name is shown.
          const renamed = {
            code: error.code,
            message: 'This workspace was renamed meanwhile; nothing was deleted.',
          };
          this.setState({ busy: false, error: { ...renamed, hint: error.hint } });
          await this.props.reload();
          return;
        }
        this.setState({ busy: false, error });
        return;
      }
      await this.props.deleted(name);
    };
  }

  /**
   * @override
   * @param {DeleteProps} props
   * @param {DeleteState} state
   */
  render({ name }, { typed, busy, error }) {
    return html`<section class="danger-zone" aria-labelledby="delete-workspace-heading">
      <h2 id="delete-workspace-heading">Delete “${name}”</h2>
      <p>Deleting this workspace deletes all of it at once, for everyone in it: its transactions, budgets and
        settings, its members and invitations, the keys and connections that reach only this workspace, and its
        history in Activity. <strong>This is final: there is no undo, and no copy is kept.</strong></p>
      <p>Download an export first (above) if you may want the data again.</p>
      <${Problem} error=${error} />
      <form onSubmit=${this.submit}>
        <label for="delete-workspace-name">Type the workspace’s name, “${name}”, to confirm</label>
        <input id="delete-workspace-name" value=${typed} autocomplete="off" spellcheck="false"
          aria-describedby="delete-workspace-help"
          onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ typed: e.currentTarget.value })} />
        <p id="delete-workspace-help" class="muted">The button below works once the name is typed exactly as shown.</p>
        <button type="submit" class="danger" disabled=${typed !== name || busy}>Delete this workspace for good</button>
      </form>
    </section>`;
  }
}
