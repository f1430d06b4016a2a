// Calls of the console: the same-origin proxy /console/api/* → /v1/* with the session cookie.
// The pages call routes by name (`api(ROUTES.revertChange, { params: { changeId } })`): ROUTES is the server's
// route table (@expense/wire's ROUTE_PATHS), served as routes.js, so no page spells a method or a path.

/** Where the console is mounted (this file is served from <base>/assets/api.js). */
export const BASE = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/**
 * @typedef {import('./types/console').ApiError} ApiError
 * @typedef {{ method: string, path: string }} Route a route of ROUTES (./routes.js)
 * @typedef {object} CallOptions
 * @property {Record<string, string>} [params] the values of the route's `{name}` path parameters
 * @property {Record<string, string | number | undefined>} [query] the query string's values (undefined left out)
 * @property {unknown} [body] sent as JSON
 * @property {string | null} [workspaceId] X-Workspace-Id
 * @property {string} [idempotencyKey] Idempotency-Key
 * @property {{ id: string, label: string }} [changeGroup] X-Change-Group and X-Change-Label
 * @property {boolean} [redirectOn401] false: a 401 does not send the browser to sign-in
 * @property {boolean} [file] the answer is a file (an export), not an envelope: the data is `{ blob, type }`
 */

export class ApiFailure extends Error {
  /**
   * @param {number} status
   * @param {Partial<ApiError> | null | undefined} error
   */
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? 'internal_error';
    this.hint = error?.hint;
    this.details = error?.details ?? {};
  }
}

/** Sends the browser to sign-in, coming back to this page. */
export function signInAgain() {
  const here = `${location.pathname}${location.search}${location.hash}`;
  location.assign(`${BASE}/sign-in?return_to=${encodeURIComponent(here)}`);
}

/** Longest Retry-After the console waits out by itself; a longer one (a daily or count limit) is shown. */
const MAX_WAIT_SECONDS = 5;
const ATTEMPTS = 4;

/**
 * fetch, waiting out short 429s: the console's session is a key like any other, with its per-second and
 * in-flight limits, and a page that loads several things at once can meet them. A 429 is given before
 * anything runs, so sending the same request again is safe for every method.
 */
/**
 * @param {string} url
 * @param {RequestInit} init
 */
async function fetchPaced(url, init) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, init);
    const wait = Number(response.headers.get('retry-after') ?? '1');
    if (response.status !== 429 || attempt === ATTEMPTS || !(wait <= MAX_WAIT_SECONDS)) return response;
    await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0.2) * 1000 * attempt));
  }
}

/**
 * A route's path with its parameters filled in, percent-encoded, and the query's defined values appended (as
 * @expense/wire's fillPath does on the server and in the CLI); throws when a parameter has no value.
 * @param {Route} route
 * @param {Record<string, string>} [params]
 * @param {Record<string, string | number | undefined>} [query]
 */
export function pathOf(route, params = {}, query = {}) {
  const path = route.path.replace(/\{([^}]+)\}/g, (_, /** @type {string} */ name) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${route.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  return search.size > 0 ? `${path}?${search}` : path;
}

/**
 * One API call; resolves with the envelope's data, rejects with ApiFailure. The data is the route's JSON as
 * its response schema describes it (the console reads it as JSON, unchecked).
 * @param {Route} route
 * @param {CallOptions} [options]
 * @returns {Promise<any>}
 */
export async function api(route, options = {}) {
  return (await apiCall(route, options)).data;
}

/**
 * One API call; resolves with the envelope's data and whether the answer is the kept one of an earlier request
 * with the same Idempotency-Key (`Idempotent-Replayed`). `options.changeGroup` ({ id, label }) puts a write
 * into a change group (X-Change-Group, X-Change-Label): the writes of one import are one entry of Activity.
 */
/**
 * @param {Route} route
 * @param {CallOptions} [options]
 * @returns {Promise<{ data: any, replayed: boolean }>}
 */
export async function apiCall(route, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: options.file ? '*/*' : 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.workspaceId) headers['x-workspace-id'] = options.workspaceId;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  if (options.changeGroup) {
    headers['x-change-group'] = options.changeGroup.id;
    headers['x-change-label'] = encodeURIComponent([...options.changeGroup.label].slice(0, 200).join(''));
  }
  const response = await fetchPaced(`${BASE}/api${pathOf(route, options.params, options.query)}`, {
    method: route.method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (response.status === 204) return { data: null, replayed: false };
  if (options.file && response.ok) {
    // The page saves it as a file (console/export.js); an answer cut short rejects here.
    const blob = await response.blob();
    return { data: { blob, type: response.headers.get('content-type') ?? '' }, replayed: false };
  }
  let envelope;
  try {
    envelope = await response.json();
  } catch {
    throw new ApiFailure(response.status, { message: 'The server answered without its envelope.' });
  }
  if (response.status === 401 && options.redirectOn401 !== false) {
    signInAgain();
  }
  if (!envelope.ok) throw new ApiFailure(response.status, envelope.error);
  return { data: envelope.data, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

export function newIdempotencyKey() {
  return crypto.randomUUID();
}
