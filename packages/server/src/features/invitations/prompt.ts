import type { Action } from '@expense/wire';
import type { ActionBuilder } from '../../platform/http/actions.js';

/**
 * What /me and /workspaces say about pending invitations: an instruction and the actions to list, accept and
 * decline them. Nothing when there are none. The invited workspaces themselves are never listed as workspaces.
 */
export function invitationPrompt(
  count: number,
  actions: ActionBuilder,
): { instructions: string[]; actions: Action[] } {
  if (count === 0) return { instructions: [], actions: [] };
  return {
    instructions: [
      `You have ${count} pending invitation${count === 1 ? '' : 's'} to join a workspace: list them with GET /invitations, ask the user, then accept or decline each (an invitation gives no access until accepted).`,
    ],
    actions: [actions.listInvitations(), actions.acceptInvitation(), actions.declineInvitation()],
  };
}
