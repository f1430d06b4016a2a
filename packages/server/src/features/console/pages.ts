/** Server-rendered console pages (sign-in): plain HTML forms that work without JavaScript. */

import { htmlDocument } from '../../platform/http/browser-pages.js';
import { escapeHtml } from '../../platform/http/html.js';

export interface PageProblem {
  message: string;
  hint?: string;
}

/** The head elements of every console page: the empty favicon (no request for /favicon.ico), the stylesheet. */
function consoleHead(base: string): string[] {
  return ['<link rel="icon" href="data:,">', `<link rel="stylesheet" href="${base}/assets/console.css">`];
}

/** A whole page around `body`; the stylesheet is a static file, so the CSP needs no inline style. */
export function page(base: string, title: string, body: string): string {
  return htmlDocument({
    title: `${title} · Expense console`,
    head: consoleHead(base),
    body: `<main class="narrow">
<h1>${escapeHtml(title)}</h1>
${body}
</main>`,
  });
}

/** What the sign-in page can say once, after a sign-out with a reason (consoleNoticeCookieName). */
export const SIGN_IN_NOTICES = {
  account_deleted:
    'Your account has been deleted. Signing in again with the same address starts a new, empty account.',
} as const;
export type SignInNotice = keyof typeof SIGN_IN_NOTICES;

export function isSignInNotice(value: unknown): value is SignInNotice {
  return typeof value === 'string' && Object.hasOwn(SIGN_IN_NOTICES, value);
}

function noticeBlock(notice: SignInNotice | undefined): string {
  if (!notice) return '';
  return `<div class="success" role="status"><p>${escapeHtml(SIGN_IN_NOTICES[notice])}</p></div>`;
}

function problemBlock(problem: PageProblem | undefined): string {
  if (!problem) return '';
  const hint = problem.hint ? `<p>${escapeHtml(problem.hint)}</p>` : '';
  return `<div class="problem" role="alert"><p><strong>${escapeHtml(problem.message)}</strong></p>${hint}</div>`;
}

export function emailPage(
  base: string,
  returnTo: string,
  problem?: PageProblem,
  email = '',
  notice?: SignInNotice,
): string {
  return page(
    base,
    'Sign in',
    `${noticeBlock(notice)}${problemBlock(problem)}
<p>We e-mail you an 8-digit code. New addresses get an account.</p>
<form method="post" action="${base}/sign-in">
<input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}" autofocus>
<button type="submit">Send code</button>
</form>`,
  );
}

export function codePage(
  base: string,
  returnTo: string,
  email: string,
  otpSessionToken: string,
  problem?: PageProblem,
): string {
  return page(
    base,
    'Enter your code',
    `${problemBlock(problem)}
<p>We sent a code to <strong>${escapeHtml(email)}</strong>. It is valid for 10 minutes; look in the spam folder if the mail is not there.</p>
<form method="post" action="${base}/sign-in/code">
<input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<input type="hidden" name="email" value="${escapeHtml(email)}">
<input type="hidden" name="otp_session_token" value="${escapeHtml(otpSessionToken)}">
<label for="code">8-digit code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{8}" maxlength="8" required autofocus>
<button type="submit">Sign in</button>
</form>
<p><a href="${base}/sign-in?return_to=${encodeURIComponent(returnTo)}">Use another address or request a new code</a></p>`,
  );
}

/** The console application's shell: one module script, no inline code. */
export function appShell(base: string): string {
  return htmlDocument({
    title: 'Expense console',
    head: [...consoleHead(base), `<script type="module" src="${base}/assets/app.js"></script>`],
    body: `<div id="app"><noscript><p>The console's pages need JavaScript; sign-in works without it.</p></noscript></div>`,
  });
}
