/**
 * The server's hints speak HTTP (they are written for agents calling the API); on the command line the same
 * next step is a command. Only the human rendering is translated; --json keeps the server's words.
 */
const REWRITES: [RegExp, string][] = [
  [/send (?:reads|it) \(SELECT\) to (?:POST )?\/(?:v1\/)?sql\/query/gi, 'run reads with `expense query`'],
  [/(?:POST )?\/(?:v1\/)?sql\/query\b/g, '`expense query`'],
  [/(?:POST )?\/(?:v1\/)?sql\/execute\b/g, '`expense exec`'],
  [/(?:POST )?\/(?:v1\/)?sql\b(?!\/)/g, '`expense sql`'],
  [/GET \/(?:v1\/)?schema\/?([a-z_]+)?/g, '`expense schema $1`'],
  [/GET \/(?:v1\/)?workspaces\b/g, '`expense workspaces`'],
  [/GET \/(?:v1\/)?me\b/g, '`expense whoami`'],
  [/Start from discovery(?: \(GET \/(?:v1\/)?\))?/gi, 'Start with `expense schema`'],
  [/X-Workspace-Id/g, '--workspace (or `expense use <workspace>`)'],
];

export function inCliWords(hint: string): string {
  let text = hint;
  for (const [pattern, replacement] of REWRITES) text = text.replace(pattern, replacement);
  return text.replace(/`expense schema `/g, '`expense schema`');
}

/** The batching pattern, for a write refused for changing too many rows at once. */
export const BATCHING_HINT =
  'Change fewer rows per statement: add a WHERE that selects a batch (e.g. a date range, or id IN (SELECT id ... ORDER BY id LIMIT 100)) and run it again until it affects 0 rows.';
