import { call, type SmtpSink, smtpSink } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient, LogCapture } from '../../http/test/helpers.js';

describe('sign-in mail over real SMTP, and logs without secrets', () => {
  let smtp: SmtpSink;

  beforeAll(async () => {
    smtp = await smtpSink();
  });
  afterAll(() => smtp.close());

  it('sends the code by SMTP and never logs a key, a code or a session token', async () => {
    const logs = new LogCapture();
    const app = await createServer(
      {
        databaseUrl: 'memory://',
        smtpUrl: smtp.url,
        mailFrom: 'Expense <signin@example.test>',
        logLevel: 'trace',
      },
      { logStream: logs },
    );
    try {
      const c = injectClient(app);
      const sent = await c.request('POST', '/api/agent/send-code', { body: { email: 'smtp@example.com' } });
      expect(sent.status).toBe(200);
      const mail = smtp.mails().at(-1)!;
      expect(mail.to).toEqual(['smtp@example.com']);
      const code = /\b(\d{8})\b/.exec(mail.subject)?.[1];
      expect(code).toMatch(/^\d{8}$/);
      expect(mail.body).toMatch(/Content-Type: text\/plain/i);
      expect(mail.body).toMatch(/Content-Type: text\/html/i);
      expect(mail.body).toContain('10 minutes');

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
