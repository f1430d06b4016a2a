import { escapeHtml } from '../../platform/http/html.js';
import type { Mail } from '../../platform/mail/mailer.js';

/** The sign-in mail: the code in the subject, a text and an HTML part, and how long the code is valid. */
export function signInMail(to: string, code: string, validMinutes: number): Mail {
  const subject = `${code} is your Expense sign-in code`;
  const text = [
    `Your Expense sign-in code is ${code}.`,
    '',
    `It is valid for ${validMinutes} minutes and can be used once.`,
    'If you did not ask for it, ignore this mail: nobody can sign in without the code.',
  ].join('\n');
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif">
<p>Your Expense sign-in code is</p>
<p style="font-size: 28px; font-weight: bold; letter-spacing: 4px">${escapeHtml(code)}</p>
<p>It is valid for ${validMinutes} minutes and can be used once.</p>
<p style="color: #666">If you did not ask for it, ignore this mail: nobody can sign in without the code.</p>
</body></html>`;
  return { to, subject, text, html };
}
