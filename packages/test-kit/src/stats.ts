/** The middle of the samples (the mean of the two middle ones for an even count); NaN for none. */
export function median(samples: readonly number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The sample at quantile `q` (0..1) by rank: 0.95 of 20 samples is the 20th smallest; NaN for none. */
export function quantile(samples: readonly number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
}
