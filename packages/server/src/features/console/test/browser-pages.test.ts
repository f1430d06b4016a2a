// One page shell, CSP, header set and same-origin rule for the console and the OAuth pages (issue 27, item 2),
// and the console's session cookie as @fastify/cookie writes it, on an http and on an https public URL.

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageCsp } from '../../../platform/http/browser-pages.js';
import { type ConsoleServer, startConsole } from './browser-kit.js';

const HTTP = 'http://console.example.test';
const HTTPS = 'https://expense.example';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no ${name} in the page`);
  return match[1]!;
}

/** The headers every server-rendered page carries, console or OAuth. */
function expectPageHeaders(res: LightMyRequestResponse, csp: string): void {
  expect(res.headers['content-security-policy']).toBe(csp);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
}

describe('browser pages', () => {
  // One console per public URL (called by inject: no browser).
  const consoles: Record<string, ConsoleServer> = {};
  const apps: Record<string, FastifyInstance> = {};

  beforeAll(async () => {
    for (const publicUrl of [HTTP, HTTPS]) {
      consoles[publicUrl] = await startConsole({ config: { publicUrl } });
      apps[publicUrl] = consoles[publicUrl].app;
    }
  });
  afterAll(async () => {
    for (const server of Object.values(consoles)) await server.close();
  });

  /** Signs in through the forms; answers the code form's response (the one that sets the cookie). */
  async function signIn(origin: string, email: string): Promise<LightMyRequestResponse> {
    const app = apps[origin]!;
    const first = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { origin, ...FORM },
      payload: new URLSearchParams({ email }).toString(),
    });
    expect(first.statusCode, first.body).toBe(200);
    const code = await consoles[origin]!.codeFor(email);
    const second = await app.inject({
      method: 'POST',
      url: '/console/sign-in/code',
      headers: { origin, ...FORM },
      payload: new URLSearchParams({
        email,
        code,
        otp_session_token: hidden(first.body, 'otp_session_token'),
      }).toString(),
    });
    expect(second.statusCode, second.body).toBe(303);
    return second;
  }

  it('keeps each page kind on one policy shape: the console loads its own files, OAuth nothing', () => {
    expect(pageCsp({ ownFiles: true })).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
    );
    expect(pageCsp({ ownFiles: false, formTargets: ['http://127.0.0.1:9'] })).toBe(
      "default-src 'none'; base-uri 'none'; form-action 'self' http://127.0.0.1:9; frame-ancestors 'none'; " +
        "object-src 'none'",
    );
  });

  it('sends the same header set with a console page and an OAuth page', async () => {
    const app = apps[HTTP]!;
    const signInPage = await app.inject({ method: 'GET', url: '/console/sign-in' });
    expect(signInPage.statusCode).toBe(200);
    expectPageHeaders(signInPage, pageCsp({ ownFiles: true }));
    const oauthPage = await app.inject({ method: 'GET', url: '/oauth/authorize?client_id=unknown' });
    expect(oauthPage.statusCode).toBe(400);
    expect(oauthPage.body).toContain('Unknown application');
    expectPageHeaders(oauthPage, pageCsp({ ownFiles: false }));
    for (const res of [signInPage, oauthPage]) {
      expect(res.body).toMatch(/^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
      expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)|<style|\sstyle=/);
    }
  });

  it('writes the session cookie with exactly these attributes on http, and clears it alike', async () => {
    const signedIn = await signIn(HTTP, 'http-cookie@example.com');
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(
      /^expense_console=exp_live_[A-Za-z0-9_-]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const out = await apps[HTTP]!.inject({
      method: 'POST',
      url: '/console/sign-out',
      headers: { origin: HTTP, cookie: cookie.split(';')[0]! },
    });
    expect(out.statusCode).toBe(303);
    expect(out.headers['set-cookie']).toBe('expense_console=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict');
  });

  it('names the cookie __Host- and marks it Secure on an https public URL, with no Domain', async () => {
    const signedIn = await signIn(HTTPS, 'https-cookie@example.com');
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(
      /^__Host-expense_console=exp_live_[A-Za-z0-9_-]+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    // The cookie signs the browser in: the shell is served, not the redirect to sign-in.
    const shell = await apps[HTTPS]!.inject({
      method: 'GET',
      url: '/console/',
      headers: { cookie: cookie.split(';')[0]! },
    });
    expect(shell.statusCode).toBe(200);
    // The http name is not this server's cookie.
    const otherName = await apps[HTTPS]!.inject({
      method: 'GET',
      url: '/console/',
      headers: { cookie: cookie.split(';')[0]!.replace('__Host-', '') },
    });
    expect(otherName.statusCode).toBe(303);
    const out = await apps[HTTPS]!.inject({
      method: 'POST',
      url: '/console/sign-out',
      headers: { origin: HTTPS, cookie: cookie.split(';')[0]! },
    });
    expect(out.headers['set-cookie']).toBe(
      '__Host-expense_console=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
  });

  it('takes Sec-Fetch-Site: same-origin when a browser sends no Origin, and refuses a request with neither', async () => {
    const app = apps[HTTP]!;
    const post = (headers: Record<string, string>, email: string) =>
      app.inject({
        method: 'POST',
        url: '/console/sign-in',
        headers: { ...headers, ...FORM },
        payload: new URLSearchParams({ email }).toString(),
      });
    const sameSite = await post({ 'sec-fetch-site': 'same-origin' }, 'fetch-meta@example.com');
    expect(sameSite.statusCode, sameSite.body).toBe(200);
    const refused: Record<string, string>[] = [
      {},
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      // Origin decides when it is there: a same-origin Sec-Fetch-Site does not excuse another Origin.
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of refused) {
      const res = await post(headers, 'refused@example.com');
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
      expect(res.json().error.hint).toContain(HTTP);
    }
    const mails = await consoles[HTTP]!.mails();
    expect(mails.filter((m) => m.to.includes('refused@example.com'))).toEqual([]);
  });

  it('refuses a cross-site consent form with the same rule and words, as a page', async () => {
    const refused: Record<string, string>[] = [{ origin: 'https://evil.example' }, {}];
    for (const headers of refused) {
      const res = await apps[HTTP]!.inject({
        method: 'POST',
        url: '/oauth/consent',
        headers: { ...headers, ...FORM },
        payload: new URLSearchParams({ request: 'x', csrf: 'x', decision: 'approve' }).toString(),
      });
      expect(res.statusCode).toBe(403);
      expectPageHeaders(res, pageCsp({ ownFiles: false }));
      expect(res.body).toContain('<h1>Refused</h1>');
      expect(res.body).toContain(`Send it from a page of ${HTTP}`);
    }
  });
});
