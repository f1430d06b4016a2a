import { z } from 'zod';
import { OAuthError } from './errors.js';

/** The largest form the OAuth endpoints read (64 KiB). */
export const FORM_LIMIT = 64 * 1024;

const value = z.string().optional();

/** `GET /oauth/authorize` (RFC 6749 §4.1.1, PKCE, RFC 8707 `resource`). */
export const AuthorizeQuerySchema = z.object({
  client_id: value,
  redirect_uri: value,
  response_type: value,
  code_challenge: value,
  code_challenge_method: value,
  resource: value,
  scope: value,
  state: value,
});

/** `GET /oauth/consent?request=…`. */
export const ConsentQuerySchema = z.object({ request: value });

/** The consent page's form. */
export const ConsentFormSchema = z.object({
  request: value,
  csrf: value,
  decision: value,
  access: value,
  workspace: value,
  lifetime: value,
});

/** Client authentication in the body (RFC 6749 §2.3.1); the Basic header is read in client-auth.ts. */
const ClientCredentials = { client_id: value, client_secret: value };

/** `POST /oauth/token` (RFC 6749 §4.1.3, §6). Which fields a grant type needs is checked by the route. */
export const TokenFormSchema = z.object({
  ...ClientCredentials,
  grant_type: value,
  code: value,
  redirect_uri: value,
  code_verifier: value,
  refresh_token: value,
  resource: value,
});

/** `POST /oauth/revoke` (RFC 7009 §2.1). */
export const RevokeFormSchema = z.object({ ...ClientCredentials, token: value, token_type_hint: value });

export type Form<S extends z.ZodType> = z.infer<S>;

/**
 * A query or form body as the schema's fields. A parameter given twice is `invalid_request` (RFC 6749 §3.1: "MUST
 * NOT be included more than once"); an empty value counts as absent (§3.1 too).
 */
export function parseForm<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const single: Record<string, string> = {};
  if (raw && typeof raw === 'object') {
    for (const [name, given] of Object.entries(raw as Record<string, unknown>)) {
      if (Array.isArray(given)) {
        throw new OAuthError('invalid_request', `The parameter ${name} is given more than once.`);
      }
      if (typeof given === 'string' && given !== '') single[name] = given;
    }
  }
  const parsed = schema.safeParse(single);
  if (!parsed.success) throw new OAuthError('invalid_request', 'The request parameters are malformed.');
  return parsed.data;
}
