/**
 * The server-rendered OAuth pages: plain HTML forms, no script, no inline style, so a strict CSP holds (the shell,
 * CSP and headers are the console's too: platform/http/browser-pages.ts).
 */

import { htmlDocument } from '../../platform/http/browser-pages.js';
import { escapeHtml } from '../../platform/http/html.js';

function page(title: string, body: string): string {
  return htmlDocument({
    title: `${title} · expense`,
    head: ['<meta name="referrer" content="same-origin">'],
    body: `<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>`,
  });
}

/**
 * The same-origin step between the client's (cross-site) link and the consent page: the console session
 * cookie is SameSite=Strict, so the browser sends it only on a navigation started from this origin.
 */
export function continuePage(next: string): string {
  const href = escapeHtml(next);
  return page(
    'Connect an application',
    `<meta http-equiv="refresh" content="0;url=${href}">
<p><a href="${href}">Continue to the consent page</a></p>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<p role="alert">${escapeHtml(message)}</p>`);
}

export interface ConsentView {
  /** Where the form posts (the consent route, with the server's prefix). */
  action: string;
  requestId: string;
  csrf: string;
  clientName: string;
  clientId: string;
  redirectHost: string;
  userEmail: string;
  workspaces: { workspaceId: string; name: string }[];
  readOnlyRequested: boolean;
}

export const LIFETIMES = [
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
] as const;
export const DEFAULT_LIFETIME_DAYS = '30';

export function consentPage(v: ConsentView): string {
  const options = v.workspaces
    .map((w) => `<option value="${escapeHtml(w.workspaceId)}">${escapeHtml(w.name)}</option>`)
    .join('\n');
  const lifetimes = LIFETIMES.map(
    (l) =>
      `<option value="${l.value}"${l.value === DEFAULT_LIFETIME_DAYS ? ' selected' : ''}>${escapeHtml(l.label)}</option>`,
  ).join('\n');
  return page(
    `Connect ${v.clientName}`,
    `<p><strong>${escapeHtml(v.clientName)}</strong> wants to use your expense data as
<strong>${escapeHtml(v.userEmail)}</strong>. After you decide, you go back to <strong>${escapeHtml(v.redirectHost)}</strong>.</p>
<p>Client id: <code>${escapeHtml(v.clientId)}</code></p>
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="request" value="${escapeHtml(v.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<fieldset>
<legend>Access</legend>
<label><input type="radio" name="access" value="read"${v.readOnlyRequested ? ' checked' : ''}> Read only (queries and reports)</label><br>
<label><input type="radio" name="access" value="read_write"${v.readOnlyRequested ? '' : ' checked'}> Read and write (record, change and delete entries)</label>
</fieldset>
<p><label for="workspace">Workspaces</label>
<select id="workspace" name="workspace">
<option value="all">All my workspaces</option>
${options}
</select></p>
<p><label for="lifetime">For how long</label>
<select id="lifetime" name="lifetime">
${lifetimes}
</select></p>
<p><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>
<p>You can revoke this connection at any time in the console's list of keys.</p>`,
  );
}
