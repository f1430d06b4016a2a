import { escapeHtml } from '../../platform/http/html.js';
import type { Mail } from '../../platform/mail/mailer.js';

export interface Invitation {
  to: string;
  workspaceName: string;
  invitedBy: string;
  /** The console's address, e.g. `https://expense.example/console/`: sign-in there leads to the invitation. */
  consoleUrl: string;
}

/**
 * The mail to an invited address: who invited them to which workspace, and the console's link (signing in
 * there shows the invitation on Home, with a link to accept or decline it). It carries no code and no key: the
 * invitee signs in like anyone else, so a forwarded mail gives nobody access.
 */
export function invitationMail({ to, workspaceName, invitedBy, consoleUrl }: Invitation): Mail {
  const subject = `${invitedBy} invited you to “${workspaceName}” on Expense`;
  const text = [
    `${invitedBy} invited you to the workspace “${workspaceName}” on Expense.`,
    '',
    `To accept, sign in at ${consoleUrl} with this e-mail address (${to}): a code is e-mailed to you, and`,
    'the first page shows the invitation with a button to accept or decline it.',
    '',
    'If you do not know the sender, ignore this mail: nothing is shared with you until you accept.',
  ].join('\n');
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif">
<p>${escapeHtml(invitedBy)} invited you to the workspace <strong>“${escapeHtml(workspaceName)}”</strong> on Expense.</p>
<p><a href="${escapeHtml(consoleUrl)}">Sign in to accept or decline</a> with this e-mail address (${escapeHtml(to)}): a code is e-mailed to you, and the first page shows the invitation.</p>
<p style="color: #666">If you do not know the sender, ignore this mail: nothing is shared with you until you accept.</p>
</body></html>`;
  return { to, subject, text, html };
}
