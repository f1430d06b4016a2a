// Account: who is signed in, and deleting the account: what goes and what stays, each workspace's export offered
// first, a typed confirmation (the e-mail address); afterwards the session ends on the sign-in page.
import { api, BASE } from '../api.js';
import { ExportButtons } from '../export.js';
import { ROUTES } from '../routes.js';
import { createRef, html, Problem } from '../ui.js';
import { LoadingPage } from './page.js';

/**
 * @typedef {object} AccountWorkspace
 * @property {string} workspaceId
 * @property {string} name
 * @property {boolean} goes deleted with the account: owned by this person and no other owner
 * @property {boolean} owner
 */

/**
 * @typedef {object} AccountState
 * @property {string | null} email
 * @property {AccountWorkspace[] | null} workspaces
 * @property {string} typed
 * @property {boolean} busy
 * @property {unknown} error
 */

/** @param {string} text */
const normalised = (text) => text.trim().toLowerCase();

/** @param {AccountWorkspace[]} list */
const names = (list) => list.map((w) => `“${w.name}”`).join(', ');

/** @extends {LoadingPage<import('../types/console').PageProps, AccountState>} */
export class AccountPage extends LoadingPage {
  constructor() {
    super();
    /** @type {AccountState} */
    this.state = { email: null, workspaces: null, typed: '', busy: false, error: null };
    /** @type {import('preact').RefObject<HTMLFormElement | null>} */
    this.signOut = createRef();
    /** @param {SubmitEvent} event */
    this.submit = async (event) => {
      event.preventDefault();
      const { email, typed, busy } = this.state;
      if (!email || normalised(typed) !== normalised(email) || busy) return;
      this.setState({ busy: true, error: null });
      try {
        await api(ROUTES.deleteAccount, { body: { confirmEmail: typed.trim() } });
      } catch (error) {
        this.setState({ busy: false, error });
        return;
      }
      // The session's key went with the account; signing out clears its cookie, and the sign-in page says the
      // account was deleted.
      this.signOut.current?.submit();
    };
  }

  /** @override */
  load() {
    return this.attempt(async () => {
      const me = await api(ROUTES.me);
      /** @type {{ workspaces: import('../types/console').Workspace[] }} */
      const { workspaces } = await api(ROUTES.workspaces);
      /** @type {AccountWorkspace[]} */
      const listed = [];
      // One after another: the session has the limits of any key.
      for (const w of workspaces) {
        let goes = false;
        if (w.role === 'owner') {
          /** @type {{ members: import('../types/console').Json[] }} */
          const { members } = await api(ROUTES.members, { params: { workspaceId: w.workspaceId } });
          goes = !members.some(
            (m) => m.role === 'owner' && m.status === 'active' && m.userId !== me.user.userId,
          );
        }
        listed.push({ workspaceId: w.workspaceId, name: w.name, goes, owner: w.role === 'owner' });
      }
      // Those deleted with the account first.
      listed.sort((a, b) => Number(b.goes) - Number(a.goes));
      this.setState({ email: me.user.email, workspaces: listed });
    });
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} _props
   * @param {AccountState} state
   */
  render(_props, { email, workspaces, typed, busy, error }) {
    if (!email || !workspaces) return error ? html`<${Problem} error=${error} />` : html`<p>Loading…</p>`;
    const goes = workspaces.filter((w) => w.goes);
    const stays = workspaces.filter((w) => !w.goes);
    return html`
      <p>Signed in as <strong>${email}</strong>.</p>
      <section class="danger-zone" aria-labelledby="delete-account-heading">
        <h2 id="delete-account-heading">Delete your account</h2>
        <p>Deleting your account deletes, at once:</p>
        <ul>
          <li>your keys: every agent’s and command line’s key, and your sign-ins to this console (you are signed
            out everywhere);</li>
          <li>the apps you allowed to use your account (connections);</li>
          <li>the invitations you sent and those sent to you;</li>
          <li>your membership of every workspace;</li>
          <li>${
            goes.length
              ? html`the workspaces you alone own, with all their data and history: ${names(goes)}.`
              : 'the workspaces you alone own, with all their data and history: you have none.'
          }</li>
        </ul>
        ${
          stays.length
            ? html`<p>${`What stays: the workspaces with another owner, and those you are a member of, with their data and history, for the people in them: ${names(stays)}. You leave them; the changes you made there stay in their history, without your name.`}</p>`
            : null
        }
        <p><strong>This is final: there is no undo, and no copy is kept.</strong></p>
        ${
          workspaces.length
            ? html`<h3>Export first</h3>
                <p>Download each workspace you may want to keep before you delete your account:</p>
                <ul class="workspace-exports">
                  ${workspaces.map(
                    (w) => html`<li key=${w.workspaceId}>
                      <strong>${w.name}</strong>
                      <span class="muted">${w.goes ? ' — deleted with your account' : ' — stays'}</span>
                      <${ExportButtons} workspaceId=${w.workspaceId} name=${w.name} />
                    </li>`,
                  )}
                </ul>`
            : null
        }
        <${Problem} error=${error} />
        <form onSubmit=${this.submit}>
          <label for="delete-account-email">Type your e-mail address, ${email}, to confirm</label>
          <input id="delete-account-email" type="email" value=${typed} autocomplete="off" spellcheck="false"
            aria-describedby="delete-account-help"
            onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ typed: e.currentTarget.value })} />
          <p id="delete-account-help" class="muted">The button below works once the address is typed as shown.</p>
          <button type="submit" class="danger" disabled=${normalised(typed) !== normalised(email) || busy}>
            Delete my account for good</button>
        </form>
        <form method="post" action="${BASE}/sign-out" ref=${this.signOut} hidden>
          <input type="hidden" name="reason" value="account_deleted" />
        </form>
      </section>
    `;
  }
}
