// Words for a person. The API's errors reach the console through its proxy already in a person's words: the
// error catalogue's console texts (packages/wire/src/error-catalog.ts, `consoleHint`), put in by the server
// (packages/server/src/console/words.ts). Nothing is rewritten here.

/** The hint to show a person for an API error. */
export function personHint(error) {
  return error?.hint;
}

/** A message to show a person (already in their words). */
export function personText(text) {
  return text;
}
