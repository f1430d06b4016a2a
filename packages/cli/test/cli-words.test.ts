import { describe, expect, it } from 'vitest';
import { inCliWords } from '../src/output/cli-words.js';

describe('inCliWords', () => {
  it('turns the HTTP steps of server hints into commands', () => {
    expect(inCliWords('This endpoint only changes data; send reads (SELECT) to /sql/query.')).toBe(
      'This endpoint only changes data; run reads with `expense query`.',
    );
    expect(inCliWords('GET /schema lists relations.')).toBe('`expense schema` lists relations.');
    expect(inCliWords('GET /v1/schema/ledger_entries shows its columns')).toBe(
      '`expense schema ledger_entries` shows its columns',
    );
    expect(inCliWords('Start from discovery (GET /v1/).')).toBe('Start with `expense schema`.');
    expect(inCliWords('Use POST /sql for scripts')).toBe('Use `expense sql` for scripts');
  });
});
