// The e-mailed one-time-code sign-in as an agent goes through it: send-code, the code from the mail the server
// wrote to its outbox directory (EXPENSE_MAIL_OUTBOX), verify-code.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_ROUTES } from '@expense/wire';
import { call, type RouteClient } from './call.js';
import type { Json } from './http.js';

export interface OutboxMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/** The newest mail to an address in the outbox directory. */
export async function lastMailTo(outbox: string, to: string): Promise<OutboxMail> {
  const files = (await readdir(outbox)).filter((f) => f.endsWith('.json')).sort();
  const mails = await Promise.all(
    files.map(async (f) => JSON.parse(await readFile(join(outbox, f), 'utf8')) as OutboxMail),
  );
  const mine = mails.filter((m) => m.to === to).sort((a, b) => a.sentAt.localeCompare(b.sentAt));
  const mail = mine.at(-1);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail;
}

/** The eight-digit code in a sign-in mail's subject. */
export function codeOf(mail: OutboxMail): string {
  const match = /\b(\d{8})\b/.exec(mail.subject);
  if (!match) throw new Error('no code in the subject');
  return match[1]!;
}

export interface SignedIn {
  apiKey: string;
  user: { userId: string; email: string };
  connection: { connectionId: string };
}

/** What signIn needs of a client: the Client of http.ts, or a live server's request. */
export type SignInClient = RouteClient<{ status: number; body: Json }>;

/**
 * The sign-in flow (send-code, the code from the outbox, verify-code) for a new key labelled `label`;
 * throws unless both steps answer 200.
 */
export async function signIn(
  client: SignInClient,
  outbox: string,
  email: string,
  label = 'laptop',
): Promise<SignedIn> {
  const sent = await call(client, AGENT_ROUTES.sendCode, { body: { email } });
  if (sent.status !== 200) throw new Error(`send-code answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  const code = codeOf(await lastMailTo(outbox, email.toLowerCase()));
  const verified = await call(client, AGENT_ROUTES.verifyCode, {
    body: { code, otpSessionToken: sent.body.data.otpSessionToken, label },
  });
  if (verified.status !== 200) {
    throw new Error(`verify-code answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  }
  return verified.body.data as SignedIn;
}
