import { describe, expect, it } from 'vitest';
import { median, quantile } from '../src/stats.js';

describe('median and quantile of the benchmarks', () => {
  it('takes the middle sample, the mean of the two middle ones for an even count, NaN for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('takes the sample at a rank, never past the largest, and leaves its input unsorted', () => {
    const samples = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(quantile(samples, 0.95)).toBe(20);
    expect(quantile(samples, 0.5)).toBe(11);
    expect(quantile(samples, 1)).toBe(20);
    expect(samples[0]).toBe(20);
    expect(quantile([], 0.95)).toBeNaN();
  });
});
