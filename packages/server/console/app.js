// The console application: Preact + htm as ES modules (no build step), hash routes, one page per area.
import { api, BASE } from './api.js';
import { ActivityPage } from './pages/activity.js';
import { KeysPage } from './pages/keys.js';
import { MembersPage } from './pages/members.js';
import { ReportsPage } from './pages/reports.js';
import { SqlPage } from './pages/sql.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { Component, h, html, render } from './ui.js';

const PAGES = [
  { path: 'workspaces', title: 'Workspaces', component: WorkspacesPage },
  { path: 'members', title: 'Members', component: MembersPage },
  { path: 'keys', title: 'Keys and connections', component: KeysPage },
  { path: 'sql', title: 'SQL', component: SqlPage },
  { path: 'reports', title: 'Reports', component: ReportsPage },
  { path: 'activity', title: 'Activity', component: ActivityPage },
];

const WORKSPACE_STORAGE = 'expense-console-workspace';

function currentPath() {
  const path = location.hash.replace(/^#\/?/, '');
  return PAGES.some((p) => p.path === path) ? path : 'workspaces';
}

class App extends Component {
  constructor() {
    super();
    this.state = { path: currentPath(), me: null, workspaceId: sessionStorage.getItem(WORKSPACE_STORAGE) };
    this.onHash = () => this.setState({ path: currentPath() }, () => this.focusHeading());
    this.selectWorkspace = (workspaceId) => {
      if (workspaceId) sessionStorage.setItem(WORKSPACE_STORAGE, workspaceId);
      else sessionStorage.removeItem(WORKSPACE_STORAGE);
      this.setState({ workspaceId });
    };
  }

  componentDidMount() {
    addEventListener('hashchange', this.onHash);
    api('GET', '/me').then(
      (me) => this.setState({ me, workspaceId: this.state.workspaceId ?? me.selectedWorkspaceId }),
      () => {},
    );
  }

  componentWillUnmount() {
    removeEventListener('hashchange', this.onHash);
  }

  focusHeading() {
    document.querySelector('main h1')?.focus();
  }

  render(_props, state) {
    const page = PAGES.find((p) => p.path === state.path);
    document.title = `${page.title} · Expense console`;
    return html`
      <header class="top">
        <strong>Expense console</strong>
        <nav aria-label="Console">
          ${PAGES.map(
            (p) =>
              html`<a href="#/${p.path}" aria-current=${p.path === state.path ? 'page' : undefined}>${p.title}</a>`,
          )}
        </nav>
        <span class="muted">${state.me?.user.email ?? ''}</span>
        <form method="post" action="${BASE}/sign-out" class="sign-out"><button type="submit" class="secondary">Sign out</button></form>
      </header>
      <main>
        <h1 tabindex="-1">${page.title}</h1>
        ${h(page.component, {
          key: page.path,
          me: state.me,
          workspaceId: state.workspaceId,
          selectWorkspace: this.selectWorkspace,
        })}
      </main>
    `;
  }
}

render(h(App, {}), document.getElementById('app'));
