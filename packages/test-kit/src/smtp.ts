import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as an SMTP server received it. */
export interface ReceivedMail {
  to: string[];
  /** The Subject header, folded lines joined. */
  subject: string;
  /** The message as sent, quoted-printable soft line breaks joined (a code or a link is whole). */
  body: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives (no TLS, no authentication). */
export interface SmtpSink {
  /** For the server's SMTP_URL, e.g. smtp://127.0.0.1:43117. */
  url: string;
  /** The mails received so far, oldest first. */
  mails(): ReceivedMail[];
  close(): Promise<void>;
}

export async function smtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const body = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r?\n/g, '');
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(body)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject, body });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails: () => [...received],
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
