// Words for a person. The API's hints are written for whoever reads the HTTP answer, often an agent ("Ask the
// user to…", "send … to /sql/execute"); the console shows a person's version of those (docs/console.md).

const HINTS = {
  invalid_email: 'Check the address and type it again.',
  invalid_code: 'Check the 8-digit code in the e-mail and type it again.',
  invalid_label: 'Give the key a name of 1 to 100 characters.',
  missing_workspace: 'Choose a workspace in the header, or create one on the Workspaces page.',
  forbidden: 'Only an owner of this workspace can do this; ask one of its owners.',
  invalid_api_key: 'Your session has ended: sign in again.',
  missing_api_key: 'Your session has ended: sign in again.',
  too_many_concurrent_requests:
    'The console is still busy with your other requests: wait a moment and try again.',
  rate_limited: 'Too many requests in a short time: wait a moment and try again.',
  last_owner: 'Make someone else an owner first; a workspace always keeps one.',
  confirmation_invalid: 'Run the dry run again, then confirm.',
  confirmation_expired: 'The dry run is too old: run it again, then confirm.',
  confirmation_mismatch: 'The statement changed after the dry run: run the dry run again, then confirm.',
  confirmation_used: 'This change was already confirmed.',
};

/** Agent phrasing that has a plain equivalent on the console's pages. */
const PHRASES = [
  [
    /send one INSERT, UPDATE or DELETE to \/sql\/execute/gi,
    'use “Dry run write” for a statement that changes data',
  ],
  [/send reads \(SELECT\) to \/sql\/query/gi, 'use “Run query” to read data'],
  [
    /send statements that read and write in one WITH to \/sql \(script mode\)/gi,
    'write the change as one statement',
  ],
  [
    /send one statement per request, or send the statements together to \/sql \(script mode\), which runs them atomically/gi,
    'run one statement at a time',
  ],
  [/\s*\(GET \/schema lists the relations, columns and rules\)/gi, ''],
  [/ask the user to /gi, ''],
  [/Ask the user /g, ''],
];

/** The hint to show a person for an API error. */
export function personHint(error) {
  if (!error) return undefined;
  if (
    HINTS[error.code] &&
    !(error.code === 'rate_limited' && /Retry-After: [6-9]|\d{2,}/.test(error.hint ?? ''))
  ) {
    return HINTS[error.code];
  }
  return personText(error.hint);
}

export function personText(text) {
  if (!text) return text;
  let out = text;
  for (const [pattern, replacement] of PHRASES) out = out.replace(pattern, replacement);
  return out === text ? text : out.charAt(0).toUpperCase() + out.slice(1);
}
