import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';

/** One message: a text and an HTML part. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailerOptions {
  smtpUrl?: string | undefined;
  from: string;
  outbox?: string | undefined;
}

export interface Mailer {
  /** `smtp` or `console`. */
  readonly transport: 'smtp' | 'console';
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** An outbox file per mail, written under a temporary name and renamed, so readers never see half a file. */
async function writeOutbox(dir: string, record: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const name = `${record.sentAt!.replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`;
  const tmp = join(dir, `.${name}.tmp`);
  await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, join(dir, name));
}

/**
 * Nodemailer through SMTP when a URL is given; otherwise the console transport, which logs the mail's text
 * (development only: it puts sign-in codes into the log).
 */
export function createMailer(options: MailerOptions, log: FastifyBaseLogger): Mailer {
  const smtp = Boolean(options.smtpUrl);
  const transporter: Transporter = smtp
    ? nodemailer.createTransport(options.smtpUrl)
    : nodemailer.createTransport({ jsonTransport: true });
  return {
    transport: smtp ? 'smtp' : 'console',
    async send(mail) {
      const message = {
        to: mail.to,
        from: options.from,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      };
      await transporter.sendMail(message);
      if (!smtp)
        log.info(
          { mail: { to: mail.to, subject: mail.subject, text: mail.text } },
          'mail (console transport)',
        );
      if (options.outbox) await writeOutbox(options.outbox, { ...message, sentAt: new Date().toISOString() });
    },
    close() {
      transporter.close();
    },
  };
}
