// The invitations' store moved to src/invitations/store.ts; routes/workspaces (another lane) still imports this path.
export { pendingInvitationCount } from '../../invitations/store.js';
