// The shapes of the error catalogue: who reads an error, and what an entry and its variants say to each.

/** Actions an error may offer, by name; the server builds them with absolute URLs (its ActionBuilder). */
export type ErrorActionName =
  | 'discover'
  | 'send_code'
  | 'verify_code'
  | 'create_workspace'
  | 'list_workspaces'
  | 'select_workspace'
  | 'get_schema'
  | 'list_members'
  | 'list_keys';

/**
 * Who reads an error, each in its own words: an agent reading the HTTP answer (`hint`, naming routes and headers),
 * an agent calling MCP tools (`mcpHint`, naming tools), a person or script on the command line (`cliHint`, naming
 * commands and options) and a person on the console (`consoleHint`, naming pages and buttons).
 */
export type Audience = 'http' | 'mcp' | 'cli' | 'console';

/**
 * A situation's hint for the audiences other than HTTP. Where one is absent, that audience reads the HTTP hint:
 * the fallback rule, which the catalogue's test allows only where the HTTP hint names nothing foreign to that
 * audience (a route, a header, an agent's "ask the user").
 */
export interface AudienceHints {
  /** The hint in an MCP tool result, naming tools rather than HTTP routes. */
  mcpHint?: string;
  /** The hint on the command line, naming commands and options. */
  cliHint?: string;
  /** The hint on the console, for a person: its pages and buttons, no routes, headers or agent phrasing. */
  consoleHint?: string;
}

/**
 * A variant's message in the audiences' words, where its message names something of one audience (a route, a
 * tool). `{{name}}` in any catalogue text is the fact of that name (`Facts`).
 */
export interface AudienceMessages {
  message?: string;
  mcpMessage?: string;
  cliMessage?: string;
  consoleMessage?: string;
}

/** What a variant of a code (one situation it arises in) may say differently. */
export interface ErrorVariant extends AudienceHints, AudienceMessages {
  hint?: string;
  retryable?: boolean;
  actions?: readonly ErrorActionName[];
  mcpNext?: string;
}

export interface ErrorEntry extends AudienceHints {
  /** The HTTP status; `http-api.md` fixes it. */
  status: number;
  /** The message when the throw site gives none. */
  message: string;
  /** The next step, in words for an agent reading the HTTP answer. */
  hint: string;
  retryable: boolean;
  actions: readonly ErrorActionName[];
  /** The next step in an MCP tool result, where it differs from the generic one (see `mcpNextStep`). */
  mcpNext?: string;
  variants?: Readonly<Record<string, ErrorVariant>>;
}
