/**
 * What every server-rendered browser page of this server shares (the console under /console, the OAuth
 * continue, consent and error pages): the HTML shell, one Content-Security-Policy shape, the security headers,
 * and one same-origin rule for state-changing browser requests (docs/security.md).
 */

import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';
import { escapeHtml } from './html.js';

export interface PagePolicy {
  /**
   * Whether the page loads this origin's files: the console's script, stylesheet, images (and the `data:`
   * favicon) and its calls to its own API. The OAuth pages load nothing (`default-src 'none'`).
   */
  ownFiles: boolean;
  /** Origins besides this one that a form may lead to (the OAuth client's redirect after consent). */
  formTargets?: readonly string[];
}

/**
 * The Content-Security-Policy of a page: no inline code, no `<base>`, no plugins, never framed, forms only to
 * this origin and `formTargets`.
 */
export function pageCsp({ ownFiles, formTargets = [] }: PagePolicy): string {
  const files = ownFiles
    ? [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
      ]
    : ["default-src 'none'"];
  return [
    ...files,
    "base-uri 'none'",
    `form-action ${["'self'", ...formTargets].join(' ')}`,
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * The headers of every response of a browser page's routes: its CSP, no framing (also for browsers without
 * `frame-ancestors`), no MIME sniffing, and `Referrer-Policy: same-origin`, not `no-referrer`: under it Chromium
 * sends `Origin: null` with form posts, which the same-origin rule refuses. Cross-origin navigations (the OAuth
 * client's redirect) still carry no referrer.
 */
export function setPageHeaders(reply: FastifyReply, policy: PagePolicy): FastifyReply {
  return reply
    .header('content-security-policy', pageCsp(policy))
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

/** Sends a whole HTML page, never cached (it may show an e-mail address, a form token or a consent). */
export function sendPage(
  reply: FastifyReply,
  status: number,
  html: string,
  policy?: PagePolicy,
): FastifyReply {
  if (policy) setPageHeaders(reply, policy);
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

export interface PageShell {
  /** The `<title>`, as text. */
  title: string;
  /** More elements of `<head>` (markup the caller escaped), e.g. the stylesheet or the module script. */
  head?: readonly string[];
  /** The `<body>`'s markup (escaped by the caller). */
  body: string;
}

/** The HTML document around a page: UTF-8, the mobile viewport, no inline script or style. */
export function htmlDocument({ title, head = [], body }: PageShell): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head.map((element) => `${element}\n`).join('')}</head>
<body>
${body}
</body>
</html>
`;
}

/** The server's own origin as browsers send it in the Origin header (`publicUrl` may carry a path prefix). */
export function originOf(publicUrl: string): string {
  return new URL(publicUrl).origin;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request comes from a page of `origin`. A state-changing browser request (any method but GET, HEAD,
 * OPTIONS) must carry `Origin` equal to the server's origin (`Origin: null` is not); when a browser sends no
 * Origin, `Sec-Fetch-Site: same-origin` stands in for it. A request with neither is refused: every browser that
 * runs these pages sends one of them. Both headers are set by the browser, never by a page's script.
 */
export function isSameOrigin(request: FastifyRequest, origin: string): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true;
  const sent = request.headers.origin;
  if (sent !== undefined) return sent === origin;
  return request.headers['sec-fetch-site'] === 'same-origin';
}

/**
 * Throws 403 `forbidden` for a state-changing request that does not come from a page of `origin` (cross-site
 * request forgery: a forged sign-in, sign-out, consent or API call through the console's proxy).
 */
export function requireSameOrigin(request: FastifyRequest, origin: string): void {
  if (isSameOrigin(request, origin)) return;
  throw new ApiError('forbidden', 'This request does not come from a page of this server’s own origin.', {
    hint: `Send it from a page of ${origin} (the Origin header must equal the server's origin).`,
  });
}
