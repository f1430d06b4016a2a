/**
 * Exact arithmetic on decimal strings (amounts are kept as text so no precision is lost): to units of 10^-6 as
 * BigInt, and back. Used to reconcile a statement and to check a running balance column.
 */

const SCALE = 6;
const FACTOR = 10n ** BigInt(SCALE);

/** `-12.5` → -12500000n; undefined when not a plain signed decimal. */
export function units(amount: string): bigint | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(amount.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const fraction = (m[3] ?? '').slice(0, SCALE).padEnd(SCALE, '0');
  const value = BigInt(m[2] || '0') * FACTOR + BigInt(fraction || '0');
  return m[1] === '-' ? -value : value;
}

/** -12500000n → `-12.50` (at least two decimals, no trailing zeros beyond them). */
export function decimal(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / FACTOR;
  let fraction = (abs % FACTOR).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

export const negate = (amount: string): string =>
  amount.startsWith('-') ? amount.slice(1) : /^0*\.?0*$/.test(amount) ? amount : `-${amount}`;
