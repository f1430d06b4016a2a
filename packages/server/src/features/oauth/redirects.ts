/** Loopback redirect URIs match whatever their port (RFC 8252 §7.3); all others match exactly. */
export function redirectMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  try {
    const r = new URL(registered);
    const q = new URL(requested);
    const loopback = ['127.0.0.1', '[::1]'].includes(r.hostname) || r.hostname === 'localhost';
    return (
      loopback &&
      r.protocol === 'http:' &&
      q.protocol === 'http:' &&
      r.hostname === q.hostname &&
      r.pathname === q.pathname &&
      r.search === q.search
    );
  } catch {
    return false;
  }
}

/** What a CSP form-action needs to allow the redirect to the client (an origin, or a custom scheme). */
export function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/** The client's redirect URI with the answer's parameters and `iss` (RFC 9207). */
export function redirectUrl(
  redirectUri: string,
  issuer: string,
  params: Record<string, string | null>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
