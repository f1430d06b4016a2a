/**
 * The one error catalogue (docs/architecture.md, "Errors"): every code the API or its MCP tools can answer, with
 * its status, default message, hint, retryability and next actions. Throw sites name a code, a message with the
 * facts of the case, and at most a variant of the catalogue; they write no hint of their own unless it is built
 * from values only the throw site knows (e.g. the names of the relations a refused statement could use).
 */
// One entry per code; the files of error-catalog/ hold, in order: the shapes (types), the API's entries (http),
// the guard's and the SQL routes' words (guard), the codes and their lookups (codes), the MCP layer's own codes
// and next steps (mcp), the rendering of an error for each audience (render), and the CLI's own codes (cli).

export * from './error-catalog/cli.js';
export * from './error-catalog/codes.js';
export * from './error-catalog/guard.js';
export * from './error-catalog/http.js';
export * from './error-catalog/mcp.js';
export * from './error-catalog/render.js';
export * from './error-catalog/rules.js';
export * from './error-catalog/types.js';
