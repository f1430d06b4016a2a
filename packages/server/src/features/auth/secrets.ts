import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, OTP_CODE_LENGTH } from '@expense/wire';

/** A new ApiKey: the recognisable prefix and 256 random bits (base64url). */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Keys are 43 base64url characters after the prefix; anything else is rejected before any lookup. */
export function isWellFormedApiKey(key: string): boolean {
  return key.startsWith(API_KEY_PREFIX) && /^[A-Za-z0-9_-]{43}$/.test(key.slice(API_KEY_PREFIX.length));
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** 8 crypto-random digits, leading zeros allowed. */
export function generateOtpCode(): string {
  return String(randomInt(0, 10 ** OTP_CODE_LENGTH)).padStart(OTP_CODE_LENGTH, '0');
}

/** An opaque session token (256 bits); only its SHA-256 is stored. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The stored form of a code: an HMAC keyed by the session token, which itself is stored only as a hash, so
 * a copy of the database does not allow trying the 10^8 codes offline.
 */
export function hashOtpCode(sessionToken: string, code: string): string {
  return createHmac('sha256', sessionToken).update(code).digest('hex');
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
