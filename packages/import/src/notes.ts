/**
 * What the reader decided (layout, encoding, dates, signs, account), as data: a note's kind and its facts, worded
 * for each reader by `noteWords`. The CLI reads its options' names; an API client (POST /v1/imports, the MCP import
 * tool, whose query parameters and tool arguments share their names) reads the name of the setting that says
 * otherwise, or nothing where the API has no such setting. Nothing rewrites a note's text afterwards.
 */

import type { RowProblem } from './rows/validate.js';

/** Who reads a note: the command line, or a client of the API (HTTP or its MCP tools). */
export type NoteReader = 'cli' | 'api';

/** A setting that overrides what the reader decided. */
export type ImportSetting = 'encoding' | 'dateFormat' | 'currency' | 'account';

/** How each reader names a setting; absent where that reader has none (the API always finds the encoding itself). */
const SETTING_WORDS: Record<ImportSetting, Partial<Record<NoteReader, string>>> = {
  encoding: { cli: '--encoding' },
  dateFormat: { cli: '--date-format' },
  currency: { cli: '--currency', api: 'currency' },
  account: { cli: '--account', api: 'account' },
};

export type ImportNote =
  /** A note every reader reads alike. */
  | { kind: 'said'; facts: { text: string } }
  /** A decision a setting overrides: the text (no full stop), then "(<setting> to say otherwise)" in the reader's words. */
  | { kind: 'settable'; facts: { text: string; setting: ImportSetting } }
  /** The signs as the caller gave them (a card file's charges). */
  | { kind: 'charges'; facts: { charges: 'positive' | 'negative' } };

export const said = (text: string): ImportNote => ({ kind: 'said', facts: { text } });
export const settable = (text: string, setting: ImportSetting): ImportNote => ({
  kind: 'settable',
  facts: { text, setting },
});

/** A note in one reader's words. */
export function noteWords(note: ImportNote, reader: NoteReader): string {
  switch (note.kind) {
    case 'said':
      return note.facts.text;
    case 'settable': {
      const setting = SETTING_WORDS[note.facts.setting][reader];
      const text = note.facts.text;
      return setting === undefined ? `${text}.` : `${text} (${setting} to say otherwise).`;
    }
    case 'charges':
      return reader === 'cli'
        ? `Signs: --charges-${note.facts.charges}.`
        : `Signs: charges written as ${note.facts.charges} numbers, as given.`;
  }
}

/**
 * A row's problem in one reader's words: the problem, then the setting that would change it as that reader names
 * it (the API has no setting for a decimal comma or a date order: it names what the value looks like).
 */
export function problemWords(problem: RowProblem, reader: NoteReader): string {
  const { message, fix } = problem;
  switch (fix?.setting) {
    case undefined:
      return message;
    case 'decimalComma':
      return reader === 'cli'
        ? `${message} — a decimal comma? use --decimal-comma`
        : `${message} — a decimal comma?`;
    case 'dateFormat':
      return reader === 'cli'
        ? `${message} — give its order with --date-format (${fix.orders})`
        : `${message} — a date written ${fix.orders}?`;
    case 'account':
      return `${message} (give the column a value, or ${reader === 'cli' ? 'use --account' : 'give account'})`;
  }
}
