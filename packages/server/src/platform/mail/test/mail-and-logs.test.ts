import type { AddressInfo } from 'node:net';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient, LogCapture } from '../../http/test/helpers.js';

describe('sign-in mail over real SMTP, and logs without secrets', () => {
  const received: { to: string[]; raw: string }[] = [];
  let smtp: SMTPServer;
  let port: number;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  it('sends the code by SMTP and never logs a key, a code or a session token', async () => {
    const logs = new LogCapture();
    const app = await createServer(
      {
        databaseUrl: 'memory://',
        smtpUrl: `smtp://127.0.0.1:${port}`,
        mailFrom: 'Expense <signin@example.test>',
        logLevel: 'trace',
      },
      { logStream: logs },
    );
    try {
      const c = injectClient(app);
      const sent = await c.request('POST', '/api/agent/send-code', { body: { email: 'smtp@example.com' } });
      expect(sent.status).toBe(200);
      const mail = received.at(-1)!;
      expect(mail.to).toEqual(['smtp@example.com']);
      const subject = /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? '';
      const code = /\b(\d{8})\b/.exec(subject)?.[1];
      expect(code).toMatch(/^\d{8}$/);
      expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
      expect(mail.raw).toMatch(/Content-Type: text\/html/i);
      expect(mail.raw).toContain('10 minutes');

      const token = sent.body.data.otpSessionToken as string;
      const verified = await c.request('POST', '/api/agent/verify-code', {
        body: { code, otpSessionToken: token, label: 'smtp' },
      });
      const key = verified.body.data.apiKey as string;
      expect(key).toMatch(/^exp_live_/);
      await call(c, API_ROUTES.me, { key });
      await call(c, API_ROUTES.workspaces, { key: `${key}x` });

      expect(logs.lines.length).toBeGreaterThan(4);
      expect(logs.text).toContain('incoming request');
      for (const secret of [key, key.slice(9), code!, token]) expect(logs.text).not.toContain(secret);
    } finally {
      await app.close();
    }
  });

  it('announces the console transport and refuses it in production', async () => {
    const logs = new LogCapture();
    const app = await createServer({ databaseUrl: 'memory://', logLevel: 'info' }, { logStream: logs });
    await app.close();
    expect(logs.text).toMatch(/no SMTP_URL/);
    await expect(
      createServer({ databaseUrl: 'memory://', nodeEnv: 'production', logLevel: 'silent' }),
    ).rejects.toThrow(/SMTP_URL/);
  });
});
