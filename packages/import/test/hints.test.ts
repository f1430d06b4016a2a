import { describe, expect, it } from 'vitest';
import { mapLines } from '../src/index.js';

// A hint proposes only a mapping whose preview would be right: never money out, a balance or an account number as
// the amount (that would book spending as income, or a number that is not money).

describe('the --map lines a refusal proposes', () => {
  it('names money out and in as --debit/--credit, never as the amount', () => {
    const header = ['Posted', 'Account Number', 'Paid out', 'Paid in', 'Balance'];
    const records = [
      { line: 2, values: ['2026-03-14', '12345678', '4.50', '', '95.50'] },
      { line: 3, values: ['2026-03-15', '12345678', '', '100.00', '195.50'] },
    ];
    const lines = mapLines(header, records);
    expect(lines).toContain('--map "Posted=ts"');
    expect(lines).toContain('--debit "Paid out" --credit "Paid in"');
    expect(lines.join(' ')).not.toMatch(/(Paid out|Paid in|Balance|Account Number)=amount/);
  });
});
