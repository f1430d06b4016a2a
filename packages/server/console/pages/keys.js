// Keys and connections in one list: CLI and agent keys, OAuth connections, console sessions.
import { api } from '../api.js';
import { dateTime } from '../format.js';
import { API_PREFIX, ROUTES } from '../routes.js';
import { CopyButton, html, Notice, Problem } from '../ui.js';
import { LoadingPage } from './page.js';

/** @typedef {import('../types/console').Json} Json */

/** @param {string | null | undefined} iso */
const when = (iso) => dateTime(iso);

/** @param {Json} key */
function kindOf(key) {
  if (key.kind === 'oauth') return `oauth${key.client?.name ? ` (${key.client.name})` : ''}`;
  return key.kind ?? 'key';
}

/** @param {Json} key */
function reachOf(key) {
  const access = key.access === 'read' ? 'read only' : key.access === 'read_write' ? 'read-write' : '';
  const where = key.workspaceId
    ? `workspace ${key.workspaceId.slice(0, 8)}…`
    : key.kind
      ? 'all workspaces'
      : '';
  return [access, where].filter(Boolean).join(', ') || '—';
}

/**
 * @typedef {object} KeysState
 * @property {Json[] | null} keys
 * @property {string} label
 * @property {Json | null} created
 * @property {unknown} error
 * @property {string | null} message
 */

/** @extends {LoadingPage<import('../types/console').PageProps, KeysState>} */
export class KeysPage extends LoadingPage {
  constructor() {
    super();
    /** @type {KeysState} */
    this.state = { keys: null, label: '', created: null, error: null, message: null };
    /** @param {SubmitEvent} event */
    this.create = async (event) => {
      event.preventDefault();
      await this.attempt(async () => {
        const created = await api(ROUTES.createKey, { body: { label: this.state.label } });
        this.setState({ label: '', created, error: null, message: null });
        await this.load();
      });
    };
  }

  /** @override */
  load() {
    return this.attempt(async () => {
      const { keys } = await api(ROUTES.keys);
      this.setState({ keys });
    });
  }

  /** @param {Json} key */
  revoke(key) {
    return this.attempt(async () => {
      await api(ROUTES.revokeKey, { params: { connectionId: key.connectionId } });
      this.setState({
        error: null,
        message: `“${key.label}” revoked: it is refused from now on.`,
        created: null,
      });
      await this.load();
    });
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} _props
   * @param {KeysState} state
   */
  render(_props, { keys, label, created, error, message }) {
    return html`
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message}<//>` : null}
      ${created ? html`<${NewKey} created=${created} email=${this.props.me?.user.email} />` : null}
      ${
        keys === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : html`<div class="table-box" tabindex="0"><table>
              <caption class="muted">Your keys and connections (every one acts as you)</caption>
              <thead><tr>
                <th scope="col">Label</th><th scope="col">Kind</th><th scope="col">Reach</th>
                <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th>
              </tr></thead>
              <tbody>
                ${keys.map(
                  (/** @type {Json} */ k) => html`<tr>
                    <td>${k.label}</td><td data-label="Kind">${kindOf(k)}${k.scopes ? html` <span class="muted">${k.scopes.join(' ')}</span>` : null}</td>
                    <td data-label="Reach">${reachOf(k)}</td><td data-label="Created">${when(k.createdAt)}</td><td data-label="Last used">${when(k.lastUsedAt)}</td>
                    <td data-label="Expires">${k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                    <td class="actions">${
                      k.current
                        ? html`<span class="muted">this session</span>`
                        : html`<button type="button" class="danger" onClick=${() => this.revoke(k)}>Revoke ${k.label}</button>`
                    }</td>
                  </tr>`,
                )}
              </tbody>
            </table></div>`
      }
      <h2>New key for an agent</h2>
      <form onSubmit=${this.create}>
        <label for="key-label">Key label</label>
        <input id="key-label" value=${label} required maxlength="100" placeholder="e.g. laptop agent"
          onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ label: e.currentTarget.value })} />
        <button type="submit">Create key</button>
      </form>
    `;
  }
}

/**
 * A snippet with the key kept on one line (a key holds "-", where a browser would otherwise break the line).
 * @param {string} text
 * @param {string} key
 */
function withKey(text, key) {
  const parts = text.split(key);
  return parts.flatMap((part, i) => (i === 0 ? [part] : [html`<span class="token">${key}</span>`, part]));
}

/** @param {{ created: Json, email: string | undefined }} props */
function NewKey({ created, email }) {
  const origin = location.origin;
  const key = created.apiKey;
  const cli = `EXPENSE_API_URL=${origin}${API_PREFIX} EXPENSE_API_KEY=${key} expense whoami`;
  const mcp = JSON.stringify(
    { mcpServers: { expense: { url: `${origin}/mcp`, headers: { Authorization: `ApiKey ${key}` } } } },
    null,
    2,
  );
  return html`<section class="success" aria-labelledby="new-key-heading">
    <h2 id="new-key-heading">New key “${created.connection.label}”</h2>
    <p><strong>Copy it now: it is shown only once.</strong></p>
    <label for="new-key-value">The new key</label>
    <input id="new-key-value" class="token" readonly value=${key} size="60" onFocus=${(/** @type {FocusEvent & { currentTarget: HTMLInputElement }} */ e) => e.currentTarget.select()} />
    <${CopyButton} text=${key} label="Copy the key" />
    <h3>expense CLI</h3>
    <p>Use this key for one command (nothing is stored):</p>
    <pre><code>${withKey(cli, key)}</code></pre>
    <${CopyButton} text=${cli} label="Copy the command" />
    <p>Or let the CLI get its own key, kept in the system keychain:</p>
    <pre><code>expense --api-url ${origin}${API_PREFIX} login --email ${email ?? 'you@example.com'}</code></pre>
    <h3>curl</h3>
    <pre><code>curl -H "Authorization: ApiKey <span class="token">${key}</span>" ${origin}${API_PREFIX}${ROUTES.me.path}</code></pre>
    <h3>MCP client configuration</h3>
    <pre><code>${withKey(mcp, key)}</code></pre>
  </section>`;
}
