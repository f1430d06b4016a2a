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

/**
 * `-12.5` → -12500000 as a number: exact for amounts under 9,000,000,000 (integers below 2^53), which is every
 * amount a bank export holds; undefined above that or when not a plain signed decimal. The evidence of signs adds
 * and compares many of these, where a BigInt costs more than the whole row.
 */
export function microUnits(amount: string): number | undefined {
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(amount)) return undefined;
  const n = Number(amount);
  // Below 10^9 a decimal of up to six places times 10^6 is within 0.5 of its integer: rounding gives it exactly.
  return Math.abs(n) < 1e9 ? Math.round(n * 1e6) : undefined;
}
