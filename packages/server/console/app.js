// The console application: Preact + htm as ES modules (no build step), hash routes, one page per area. The
// selected workspace (kept in localStorage, so a new tab has it too) is named in the header on every page.
import { api, BASE } from './api.js';
import { AccountPage } from './pages/account.js';
import { ActivityPage } from './pages/activity.js';
import { BudgetsPage } from './pages/budgets.js';
import { HomePage } from './pages/home.js';
import { ImportPage } from './pages/import.js';
import { KeysPage } from './pages/keys.js';
import { MembersPage } from './pages/members.js';
import { ReportsPage } from './pages/reports.js';
import { SqlPage } from './pages/sql.js';
import { TransactionsPage } from './pages/transactions.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { ROUTES } from './routes.js';
import { Component, h, html, render } from './ui.js';

/**
 * @typedef {import('./types/console').PageProps} PageProps
 * @typedef {{ path: string, title: string, component: import('preact').ComponentType<PageProps>, keepOnSwitch?: boolean }} PageEntry
 * @typedef {object} AppState
 * @property {string} path
 * @property {import('./types/console').Me | null} me
 * @property {import('./types/console').Workspace[] | null} workspaces
 * @property {string | null} workspaceId
 * @property {import('./types/console').Settings | null} settings
 */

/** @type {PageEntry[]} */
const PAGES = [
  { path: 'home', title: 'Home', component: HomePage },
  { path: 'transactions', title: 'Transactions', component: TransactionsPage },
  { path: 'budgets', title: 'Budgets', component: BudgetsPage },
  { path: 'import', title: 'Import', component: ImportPage },
  { path: 'reports', title: 'Reports', component: ReportsPage },
  { path: 'activity', title: 'Activity', component: ActivityPage },
  { path: 'workspaces', title: 'Workspaces', component: WorkspacesPage, keepOnSwitch: true },
  { path: 'members', title: 'Members', component: MembersPage, keepOnSwitch: true },
  { path: 'keys', title: 'Keys and connections', component: KeysPage },
  { path: 'sql', title: 'SQL', component: SqlPage },
  { path: 'account', title: 'Account', component: AccountPage, keepOnSwitch: true },
];

const WORKSPACE_STORAGE = 'expense-console-workspace';

function currentPath() {
  const path = location.hash.replace(/^#\/?/, '');
  return PAGES.some((p) => p.path === path) ? path : 'home';
}

function storedWorkspace() {
  try {
    return localStorage.getItem(WORKSPACE_STORAGE);
  } catch {
    return null;
  }
}

/** @extends {Component<{}, AppState>} */
class App extends Component {
  constructor() {
    super();
    /** @type {AppState} */
    this.state = {
      path: currentPath(),
      me: null,
      workspaces: null,
      workspaceId: storedWorkspace(),
      settings: null,
    };
    this.onHash = () => this.setState({ path: currentPath() }, () => this.focusHeading());
    /** @param {StorageEvent} event */
    this.onStorage = (event) => {
      if (event.key === WORKSPACE_STORAGE) this.selectWorkspace(event.newValue, false);
    };
    /**
     * @param {string | null} workspaceId
     * @param {boolean} [store]
     */
    this.selectWorkspace = (workspaceId, store = true) => {
      if (store) {
        if (workspaceId) localStorage.setItem(WORKSPACE_STORAGE, workspaceId);
        else localStorage.removeItem(WORKSPACE_STORAGE);
      }
      this.setState({ workspaceId, settings: null }, () => this.loadSettings());
    };
    this.reloadWorkspaces = () => this.loadWorkspaces();
    this.reloadSettings = () => this.loadSettings();
  }

  /** @override */
  componentDidMount() {
    addEventListener('hashchange', this.onHash);
    addEventListener('storage', this.onStorage);
    api(ROUTES.me).then(
      (me) => this.setState({ me }, () => this.loadWorkspaces()),
      () => {},
    );
  }

  /** @override */
  componentWillUnmount() {
    removeEventListener('hashchange', this.onHash);
    removeEventListener('storage', this.onStorage);
  }

  async loadWorkspaces() {
    try {
      /** @type {{ workspaces: import('./types/console').Workspace[] }} */
      const { workspaces } = await api(ROUTES.workspaces);
      let { workspaceId } = this.state;
      // A stored choice this person no longer belongs to (removed, or another account) falls back.
      if (!workspaces.some((w) => w.workspaceId === workspaceId)) {
        workspaceId = this.state.me?.selectedWorkspaceId ?? null;
        if (!workspaces.some((w) => w.workspaceId === workspaceId))
          workspaceId = workspaces[0]?.workspaceId ?? null;
        // None left (the last one deleted or left): the stored choice goes too.
        if (workspaceId) localStorage.setItem(WORKSPACE_STORAGE, workspaceId);
        else localStorage.removeItem(WORKSPACE_STORAGE);
      }
      const changed = workspaceId !== this.state.workspaceId || !this.state.settings;
      this.setState({ workspaces, workspaceId }, () => changed && this.loadSettings());
    } catch {
      this.setState({ workspaces: [] });
    }
  }

  /** The selected workspace's reporting currency and time zone: amounts and dates are shown in them. */
  async loadSettings() {
    const workspaceId = this.state.workspaceId;
    if (!workspaceId) return;
    try {
      const result = await api(ROUTES.sqlQuery, {
        body: { sql: 'SELECT reporting_currency, timezone FROM workspace_settings' },
        workspaceId,
      });
      const row = result.statements[0]?.rows[0];
      if (workspaceId !== this.state.workspaceId) return;
      this.setState({
        settings: { currency: row?.reporting_currency ?? 'USD', timeZone: row?.timezone ?? 'UTC' },
      });
    } catch {
      this.setState({ settings: { currency: 'USD', timeZone: 'UTC' } });
    }
  }

  focusHeading() {
    const heading = document.querySelector('main h1');
    if (heading instanceof HTMLElement) heading.focus();
  }

  /**
   * @override
   * @param {{}} _props
   * @param {AppState} state
   */
  render(_props, state) {
    // currentPath() gives the path of a page, home otherwise.
    const page = /** @type {PageEntry} */ (PAGES.find((p) => p.path === state.path));
    document.title = `${page.title} · Expense console`;
    const workspace = state.workspaces?.find((w) => w.workspaceId === state.workspaceId) ?? null;
    const waiting =
      !page.keepOnSwitch && Boolean(state.workspaceId) && !state.settings && state.workspaces?.length !== 0;
    return html`
      <header class="top">
        <strong>Expense</strong>
        ${
          state.workspaces?.length
            ? html`<div class="switcher">
                <label for="workspace-switcher">Workspace</label>
                <select id="workspace-switcher" value=${state.workspaceId ?? ''}
                  onChange=${(/** @type {Event & { currentTarget: HTMLSelectElement }} */ e) => this.selectWorkspace(e.currentTarget.value)}>
                  ${state.workspaces.map((w) => html`<option value=${w.workspaceId}>${w.name}</option>`)}
                </select>
              </div>`
            : null
        }
        <nav aria-label="Console">
          ${PAGES.map(
            (p) =>
              html`<a href="#/${p.path}" aria-current=${p.path === state.path ? 'page' : undefined}>${p.title}</a>`,
          )}
        </nav>
        <span class="muted who">${state.me?.user.email ?? ''}</span>
        <form method="post" action="${BASE}/sign-out" class="sign-out"><button type="submit" class="secondary">Sign out</button></form>
      </header>
      <main>
        <h1 tabindex="-1">${page.title}</h1>
        ${
          // Pages start once the workspace's currency and time zone are known (their amounts, dates and
          // "this month" depend on them).
          waiting
            ? html`<p>Loading…</p>`
            : h(page.component, {
                // Pages that show one workspace's data start afresh when another is chosen.
                key: page.keepOnSwitch ? page.path : `${page.path} ${state.workspaceId ?? ''}`,
                me: state.me,
                workspaceId: state.workspaceId,
                workspace,
                role: workspace?.role ?? null,
                settings: state.settings,
                workspaces: state.workspaces,
                selectWorkspace: this.selectWorkspace,
                reloadWorkspaces: this.reloadWorkspaces,
                reloadSettings: this.reloadSettings,
              })
        }
      </main>
    `;
  }
}

render(h(App, {}), /** @type {HTMLElement} */ (document.getElementById('app')));
