// Members and invitations of the selected workspace, and the invitations addressed to me.
import { api } from '../api.js';
import { dateTime } from '../format.js';
import { ROUTES } from '../routes.js';
import { Component, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

/** @typedef {import('../types/console').Json} Json */

/** @param {Json} member */
function keysOf(member) {
  const n = member.activeKeys;
  if (n === undefined) return `all of ${member.email}'s keys`;
  return n === 1 ? `${member.email}'s 1 key` : `all ${n} of ${member.email}'s keys`;
}

/**
 * @typedef {object} MembersState
 * @property {Json[] | null} members
 * @property {Json[] | null} mine
 * @property {string} email
 * @property {unknown} error
 * @property {string | null} message
 * @property {Json | null} confirming
 */

/** @extends {Component<import('../types/console').PageProps, MembersState>} */
export class MembersPage extends Component {
  constructor() {
    super();
    /** @type {MembersState} */
    this.state = { members: null, mine: null, email: '', error: null, message: null, confirming: null };
    /** @param {SubmitEvent} event */
    this.invite = async (event) => {
      event.preventDefault();
      const workspaceId = this.props.workspaceId;
      if (!workspaceId) return;
      try {
        const { member } = await api(ROUTES.addMember, {
          params: { workspaceId },
          body: { email: this.state.email },
        });
        this.setState({ email: '', error: null, message: `Invitation sent to ${member.email}.` });
        await this.load();
      } catch (error) {
        this.setState({ error });
      }
    };
  }

  /** @override */
  componentDidMount() {
    this.load();
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} previous
   */
  componentDidUpdate(previous) {
    if (previous.workspaceId !== this.props.workspaceId) this.load();
  }

  async load() {
    try {
      const { invitations } = await api(ROUTES.invitations);
      const members = this.props.workspaceId
        ? (await api(ROUTES.members, { params: { workspaceId: this.props.workspaceId } })).members
        : null;
      this.setState({ mine: invitations, members });
    } catch (error) {
      this.setState({ error });
    }
  }

  /** @param {Json} member */
  async remove(member) {
    const workspaceId = this.props.workspaceId;
    if (!workspaceId) return;
    try {
      await api(ROUTES.removeMember, { params: { workspaceId, userId: member.userId } });
      const what =
        member.status === 'invited'
          ? 'Invitation withdrawn'
          : `${member.email} removed; their keys are revoked`;
      this.setState({ confirming: null, error: null, message: `${what}.` });
      await this.load();
    } catch (error) {
      this.setState({ confirming: null, error });
    }
  }

  /**
   * @param {Json} invitation
   * @param {boolean} accept
   */
  async answer(invitation, accept) {
    try {
      if (accept) await api(ROUTES.acceptInvitation, { params: { workspaceId: invitation.workspaceId } });
      else await api(ROUTES.declineInvitation, { params: { workspaceId: invitation.workspaceId } });
      this.setState({
        error: null,
        message: `${accept ? 'Joined' : 'Declined'} “${invitation.workspaceName}”.`,
      });
      if (accept) {
        await this.props.reloadWorkspaces?.();
        this.props.selectWorkspace(invitation.workspaceId);
      }
      await this.load();
    } catch (error) {
      this.setState({ error });
    }
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {MembersState} state
   */
  render({ workspaceId, me, role }, { members, mine, email, error, message, confirming }) {
    const owners = (members ?? []).filter(
      (/** @type {Json} */ m) => m.role === 'owner' && m.status !== 'invited',
    );
    const soleOwner = owners.length === 1 && owners[0]?.userId === me?.user.userId;
    return html`
      <${Problem} error=${error} />
      ${message ? html`<${Notice} kind="success">${message}<//>` : null}
      <h2>Invitations to me</h2>
      ${
        mine === null
          ? error
            ? null
            : html`<p>Loading…</p>`
          : mine.length === 0
            ? html`<p>No pending invitations.</p>`
            : html`<ul>
                ${mine.map(
                  (/** @type {Json} */ i) => html`<li>
                    “${i.workspaceName}” from ${i.invitedBy.email} (${dateTime(i.invitedAt, this.props.settings?.timeZone)})
                    <button type="button" onClick=${() => this.answer(i, true)}>Accept ${i.workspaceName}</button>
                    <button type="button" class="secondary" onClick=${() => this.answer(i, false)}>Decline ${i.workspaceName}</button>
                  </li>`,
                )}
              </ul>`
      }
      <h2>Members of the selected workspace</h2>
      ${
        !workspaceId
          ? html`<${NeedsWorkspace} workspaces=${this.props.workspaces} selectWorkspace=${this.props.selectWorkspace} />`
          : html`
            ${
              members === null
                ? error
                  ? null
                  : html`<p>Loading…</p>`
                : html`<div class="table-box" tabindex="0"><table>
                    <caption class="muted">Members and pending invitations</caption>
                    <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
                    <tbody>
                      ${members.map(
                        (/** @type {Json} */ m) => html`<tr>
                          <td>${m.email}</td><td data-label="Role">${m.role}</td><td data-label="Status">${m.status === 'invited' ? 'invited (pending)' : 'active'}</td>
                          <td data-label="Since">${dateTime(m.addedAt, this.props.settings?.timeZone)}</td>
                          <td class="actions">${
                            m.userId === me?.user.userId && soleOwner
                              ? html`<button type="button" class="danger" disabled aria-describedby="sole-owner">Leave this workspace</button>
                                  <p id="sole-owner" class="muted">You are its only owner: you can leave once someone else is an
                                    owner too, or delete the workspace on <a href="#/workspaces">Workspaces</a>.</p>`
                              : m.userId === me?.user.userId || role === 'owner'
                                ? html`<button type="button" class="danger" onClick=${() => this.setState({ confirming: m })}>
                                  ${
                                    m.userId === me?.user.userId
                                      ? 'Leave this workspace'
                                      : m.status === 'invited'
                                        ? `Withdraw invitation for ${m.email}`
                                        : `Remove ${m.email}`
                                  }
                                </button>`
                                : null
                          }</td>
                        </tr>`,
                      )}
                    </tbody>
                  </table></div>`
            }
            ${confirming ? this.confirmation(confirming) : null}
            <p class="muted">A workspace always keeps at least one owner: the last owner cannot leave or be
              removed until someone else is an owner too.</p>
            ${
              role === 'owner'
                ? html`<h2>Invite someone</h2>
                  <p>Tell them to sign in to this console with that address: their Home page shows the invitation, to accept
                    or decline.</p>
                  <form onSubmit=${this.invite}>
                    <label for="invite-email">E-mail address to invite</label>
                    <input id="invite-email" type="email" value=${email} required
                      onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ email: e.currentTarget.value })} />
                    <button type="submit">Send invitation</button>
                  </form>`
                : html`<p class="muted">Only an owner of this workspace can invite or remove people.</p>`
            }`
      }
    `;
  }

  /** @param {Json} member */
  confirmation(member) {
    const self = member.userId === this.props.me?.user.userId;
    const text = self
      ? 'Leave this workspace? This revokes all of your keys, this console session included. The last owner cannot leave.'
      : member.status === 'invited'
        ? `Withdraw the invitation for ${member.email}? It touches no key.`
        : `Remove ${member.email}? This revokes ${keysOf(member)} at once (every agent and connection they use stops working), not only for this workspace.`;
    return html`<div role="alertdialog" aria-modal="false" aria-labelledby="confirm-remove-text" class="notice">
      <p id="confirm-remove-text">${text}</p>
      <button type="button" class="danger" onClick=${() => this.remove(member)}>Yes, remove</button>
      <button type="button" class="secondary" onClick=${() => this.setState({ confirming: null })}>Cancel</button>
    </div>`;
  }
}
