import { FX_FRESH_RATES } from '../fx/coverage.js';

/** The onboarding steps for an agent, in the order http-api.md fixes. */
export const DISCOVERY_INSTRUCTIONS = [
  'Ask the user for their e-mail address first; do nothing else before you have it.',
  'Call send_code with {"email": "<address>"}; keep the otpSessionToken it returns.',
  'Tell the user the mail may take a minute, and to look in the spam or junk folder if it is not visible.',
  'Ask the user for the 8-digit code from the mail.',
  'Call verify_code with {"code", "otpSessionToken", "label"} (label names this agent or machine).',
  'Do not suggest requesting another code right away: mail can take a minute, and sending is rate-limited (an older code stays valid until it expires).',
  'Store the returned ApiKey outside chat memory (e.g. a local env file such as .env, EXPENSE_API_KEY=...); send it as "Authorization: ApiKey <key>".',
  "Then verify_code's instructions and actions name the next calls from what the user has: GET /me (who you are) and GET /workspaces are not needed first; a user's only workspace needs no select (selecting is for a user with several); a new user has none: ask the user for its name, reporting currency (ISO 4217) and time zone (IANA), and call create_workspace with all three (left out, they default to USD and UTC, and an entry at 00:30 local time on the 1st then counts in the previous month). Then read GET /schema and use the SQL endpoints.",
  "Read the agent's guide (docs.guideUrl) for the SQL dialect, writing data and recipes; every SQL result carries data.clock with today's date in the workspace's time zone.",
  FX_FRESH_RATES,
  'Every committed write is kept in the change history (GET /changes, 90 days): tell the user what you changed, and undo a mistake with POST /changes/{changeId}/revert.',
  'Agents that speak MCP can use the same service as tools: connect to mcp.url (Streamable HTTP) with "Authorization: Bearer <key>" (the ApiKey, or an OAuth 2.1 token: mcp.resourceMetadataUrl), or run `expense mcp` locally; GET /guide/mcp explains the tools.',
];
