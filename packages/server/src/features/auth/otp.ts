import type { SendCodeData, User, VerifyCodeBody } from '@expense/wire';
import { OTP_CODE_LENGTH } from '@expense/wire';
import { ApiError } from '../../platform/http/api-error.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { clientBucket } from '../../platform/ratelimit/client-address.js';
import { consumeAll, type Limiter, type RateLimits } from '../../platform/ratelimit/limits.js';
import type { Database } from '../../platform/storage/database.js';
import { createApiKey, type NewKeyOptions } from './api-keys.js';
import {
  constantTimeEqualHex,
  generateOtpCode,
  generateSessionToken,
  hashOtpCode,
  sha256Hex,
} from './secrets.js';
import { signInMail } from './sign-in-mail.js';

export const OTP_VALID_MINUTES = 10;
export const OTP_MAX_WRONG_CODES = 5;

/**
 * Send-code limits (http-api.md). The pair (client address, e-mail address) has its own small budget, so that
 * nobody can spend a person's whole allowance from elsewhere: a client can take at most 5 of an address's 20
 * codes an hour, and sends at most 30 codes an hour to all addresses together.
 */
export const SEND_CODE_LIMITS = {
  perAddressAndClient: { name: 'send-code-address-client', points: 5, durationSeconds: 3600 },
  perAddress: { name: 'send-code-address', points: 20, durationSeconds: 3600 },
  perClient: { name: 'send-code-client', points: 30, durationSeconds: 3600 },
} as const;

/** Addresses are compared and stored trimmed and in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface VerifiedSignIn {
  apiKey: string;
  connection: { connectionId: string; label: string; createdAt: string };
  user: User;
}

/** The e-mailed one-time-code flow; one flow for sign-up and log-in. */
export class OtpService {
  private readonly perAddressAndClient: Limiter;
  private readonly perAddress: Limiter;
  private readonly perClient: Limiter;

  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    limits: RateLimits,
  ) {
    this.perAddressAndClient = limits.create(SEND_CODE_LIMITS.perAddressAndClient);
    this.perAddress = limits.create(SEND_CODE_LIMITS.perAddress);
    this.perClient = limits.create(SEND_CODE_LIMITS.perClient);
  }

  /** `clientAddress` is the request's (an IPv6 address counts as its /64, whatever form asks: API or console). */
  async sendCode(rawEmail: string, clientAddress: string): Promise<SendCodeData> {
    const email = normalizeEmail(rawEmail);
    const address = sha256Hex(email);
    const client = clientBucket(clientAddress);
    // In this order, a refused request has spent only budgets of its own client: the address's shared
    // allowance is touched only by requests that passed the client's own limits.
    await consumeAll(
      [
        { limiter: this.perClient, key: client },
        { limiter: this.perAddressAndClient, key: `${client}|${address}` },
        { limiter: this.perAddress, key: address },
      ],
      'sign-in codes',
    );
    const code = generateOtpCode();
    const token = generateSessionToken();
    const expiresAt = new Date(Date.now() + OTP_VALID_MINUTES * 60_000);
    // A new code never voids an older challenge: each is bound to its own otpSessionToken, so nobody else's
    // send-code can void or block a sign-in in progress.
    const { rows } = await this.db.query<{ challenge_id: string }>(
      `INSERT INTO expense_internal.otp_challenges (token_hash, email, code_hash, expires_at)
       VALUES ($1, $2, $3, $4) RETURNING challenge_id`,
      [sha256Hex(token), email, hashOtpCode(token, code), expiresAt],
    );
    const challengeId = rows[0]!.challenge_id;
    try {
      await this.mailer.send(signInMail(email, code, OTP_VALID_MINUTES));
    } catch (cause) {
      await this.db.query(
        'UPDATE expense_internal.otp_challenges SET voided_at = now() WHERE challenge_id = $1',
        [challengeId],
      );
      throw new ApiError('internal_error', 'The sign-in mail could not be sent.', {
        variant: 'mail',
        cause,
      });
    }
    return { otpSessionToken: token, expiresAt: expiresAt.toISOString(), codeLength: OTP_CODE_LENGTH };
  }

  /** Exchanges a code for a new key (kind `agent` unless `keyOptions` say otherwise, e.g. a console session). */
  async verifyCode(body: VerifyCodeBody, keyOptions: NewKeyOptions = {}): Promise<VerifiedSignIn> {
    const outcome = await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{
        challenge_id: string;
        email: string;
        code_hash: string;
        expires_at: Date;
        attempts: number;
        consumed_at: Date | null;
        voided_at: Date | null;
      }>(
        `SELECT challenge_id, email, code_hash, expires_at, attempts, consumed_at, voided_at
         FROM expense_internal.otp_challenges WHERE token_hash = $1 FOR UPDATE`,
        [sha256Hex(body.otpSessionToken)],
      );
      const challenge = rows[0];
      if (!challenge || challenge.consumed_at || challenge.voided_at) {
        return { error: new ApiError('invalid_otp_session', 'This sign-in session is not valid any more.') };
      }
      if (new Date(challenge.expires_at).getTime() <= Date.now()) {
        return {
          error: new ApiError(
            'expired_code',
            `The code has expired (codes are valid ${OTP_VALID_MINUTES} minutes).`,
          ),
        };
      }
      if (!constantTimeEqualHex(hashOtpCode(body.otpSessionToken, body.code), challenge.code_hash)) {
        const attempts = challenge.attempts + 1;
        const remaining = Math.max(0, OTP_MAX_WRONG_CODES - attempts);
        await tx.query(
          `UPDATE expense_internal.otp_challenges
           SET attempts = $2, voided_at = CASE WHEN $3 THEN now() ELSE voided_at END WHERE challenge_id = $1`,
          [challenge.challenge_id, attempts, remaining === 0],
        );
        return {
          error: new ApiError('invalid_code', 'The code is not correct.', {
            ...(remaining === 0 ? { variant: 'void' as const } : {}),
            details: { attemptsRemaining: remaining },
          }),
        };
      }
      await tx.query(
        'UPDATE expense_internal.otp_challenges SET consumed_at = now() WHERE challenge_id = $1',
        [challenge.challenge_id],
      );
      const user = await upsertUser(tx, challenge.email);
      const key = await createApiKey(tx, user.userId, body.label, keyOptions);
      return { user, key };
    });
    // Wrong-code attempts must be committed, so the error is raised after the transaction.
    if ('error' in outcome) throw outcome.error;
    return {
      apiKey: outcome.key.apiKey,
      connection: {
        connectionId: outcome.key.connectionId,
        label: body.label,
        createdAt: new Date(outcome.key.createdAt).toISOString(),
      },
      user: outcome.user,
    };
  }
}

/** The user of an address, created when it is new. */
export async function upsertUser(tx: { query: Database['query'] }, email: string): Promise<User> {
  const normalized = normalizeEmail(email);
  const found = await tx.query<{ user_id: string; email: string }>(
    'SELECT user_id, email FROM expense_internal.users WHERE lower(email) = $1',
    [normalized],
  );
  const existing = found.rows[0];
  if (existing) return { userId: existing.user_id, email: existing.email };
  const { rows } = await tx.query<{ user_id: string; email: string }>(
    `INSERT INTO expense_internal.users (email) VALUES ($1)
     ON CONFLICT ((lower(email))) DO UPDATE SET email = expense_internal.users.email
     RETURNING user_id, email`,
    [normalized],
  );
  return { userId: rows[0]!.user_id, email: rows[0]!.email };
}
