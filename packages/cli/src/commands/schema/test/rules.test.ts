import { SCHEMA_RULE_WORDS, TRANSFER_RULE } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { hintsText, rulesText } from '../command.js';

/** The rules as GET /schema answers them: the catalogue's HTTP words, and rules that name no route. */
const ANSWERED = [
  'Allowed statements: SELECT, WITH ... SELECT, INSERT, UPDATE, DELETE; only the relations listed here.',
  SCHEMA_RULE_WORDS.modes.http,
  SCHEMA_RULE_WORDS.clock.http,
  "SQL runs in Europe/Berlin: TIMESTAMPTZ '2026-12-01 00:00:00' means midnight in Europe/Berlin.",
  SCHEMA_RULE_WORDS.approval.http,
  SCHEMA_RULE_WORDS.history.http,
];

describe('expense schema: the rules', () => {
  it("lists every rule, those naming routes or the agent's user in the catalogue's CLI words", () => {
    const text = rulesText(ANSWERED) ?? '';
    const lines = text.split('\n');
    expect(lines[0]).toBe('Rules:');
    expect(lines).toHaveLength(ANSWERED.length + 1);
    expect(text).not.toMatch(/\b(?:GET|POST) \/|\/sql\b|\/v1\//);
    expect(text).not.toMatch(/\bthe user\b/);
    expect(text).toContain('`expense sql -f <file>` one or more, applied atomically');
    expect(text).toContain('`expense revert <changeId>` undoes one');
    expect(text).toContain('ask for your approval before committing it (--yes approves without asking)');
    // A rule the catalogue has no words for is shown as answered, never dropped or reworded.
    expect(lines[1]).toBe(`  - ${ANSWERED[0]}`);
    expect(lines[4]).toBe(`  - ${ANSWERED[3]}`);
  });

  it('prints nothing when the server answers no rules', () => {
    expect(rulesText([])).toBeUndefined();
  });
});

describe('expense schema <relation>: the hints', () => {
  it("shows the transfer rule in the catalogue's CLI words, every other hint as answered", () => {
    const answered = ['One row per movement of money in one account.', TRANSFER_RULE.http];
    expect(TRANSFER_RULE.http).toMatch(/\/sql script/);
    const lines = (hintsText(answered) ?? '').split('\n');
    expect(lines).toEqual(['', 'Hints:', `  - ${answered[0]}`, `  - ${TRANSFER_RULE.cli}`]);
    expect(lines.join('\n')).not.toMatch(/\/sql\b/);
    expect(hintsText([])).toBeUndefined();
  });
});
