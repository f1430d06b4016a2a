// Shared pieces: Preact and htm from the pinned packages, and small accessible building blocks.
import htm from '../vendor/htm.mjs';
import { Component, createRef, h, render } from '../vendor/preact.mjs';
import { shortChangeId } from './format.js';

export const html = htm.bind(h);
export { Component, createRef, h, render };

/** An API failure as the person needs it: the message, the hint naming the next step, the position if any. */
/**
 * A caught failure as the console shows it: an ApiFailure, or a page's own `{ message }`, or anything thrown.
 * @param {unknown} error
 * @returns {import('./types/console').ApiError | null}
 */
function problemOf(error) {
  if (!error) return null;
  if (typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    return /** @type {import('./types/console').ApiError} */ (error);
  }
  return { message: String(error) };
}

/** @param {{ error: unknown }} props */
export function Problem(props) {
  const error = problemOf(props.error);
  if (!error) return null;
  const position = error.details?.position;
  // The API's errors reach the console through its proxy already in a person's words (the catalogue's console
  // texts, put in by src/features/console/words.ts).
  const hint = error.hint;
  return html`<div class="problem" role="alert">
    <p><strong>${error.message}</strong> <span class="muted">(${error.code ?? 'error'})</span></p>
    ${hint ? html`<p>Hint: ${hint}</p>` : null}
    ${position ? html`<p>At line ${position.line}, column ${position.column}.</p>` : null}
  </div>`;
}

/** @param {{ children?: import('preact').ComponentChildren, kind?: string }} props */
export function Notice({ children, kind = 'notice' }) {
  return html`<div class=${kind} role="status">${children}</div>`;
}

/** A result table (columns by name) with a caption; numbers right-aligned. */
/** @param {{ caption: string, columns: string[], rows: import('./types/console').Row[] }} props */
export function DataTable({ caption, columns, rows }) {
  return html`<div class="table-box" tabindex="0"><table>
    <caption class="muted">${caption}</caption>
    <thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>${columns.map((c, i) => {
            const value = row[c];
            const numeric =
              typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value));
            return html`<td class=${numeric ? 'num' : ''} data-label=${i === 0 ? undefined : c}>${format(value)}</td>`;
          })}</tr>`,
      )}
    </tbody>
  </table></div>`;
}

/** @param {unknown} value */
export function format(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A page that needs a selected workspace says so instead of failing: with a switcher of its own when the person
 * is in workspaces, else where to get one.
 */
/** @param {Pick<import('./types/console').PageProps, 'workspaces' | 'selectWorkspace'>} props */
export function NeedsWorkspace({ workspaces, selectWorkspace }) {
  if (!workspaces?.length) {
    return html`<${Notice}>You are in no workspace yet. Accept an invitation on <a href="#/members">Members</a>, or
      create a workspace on <a href="#/workspaces">Workspaces</a>.<//>`;
  }
  return html`<${Notice}>
    <label for="needs-workspace">Choose a workspace</label>
    <select id="needs-workspace" onChange=${(/** @type {import('./types/console').FieldEvent} */ e) => selectWorkspace(e.currentTarget.value || null)}>
      <option value="">(choose one)</option>
      ${workspaces.map((w) => html`<option value=${w.workspaceId}>${w.name}</option>`)}
    </select>
  <//>`;
}

/**
 * A change id as shown everywhere in the console: its short id (the API's `shortId` where the answer has one: 12
 * digits when another change of the workspace ends in the same 8), the full id in the title (and to copy).
 */
/** @param {{ id: string, short?: string }} props */
export function ChangeId({ id, short }) {
  return html`<code class="change-id" title=${id}>${short ?? shortChangeId(id)}</code>`;
}

/** A button that copies a text (a key, a command line) and says that it did, or how to copy it by hand. */
/** @extends {Component<{ text: string, label: string }, { done: string | null }>} */
export class CopyButton extends Component {
  constructor() {
    super();
    /** @type {{ done: string | null }} */
    this.state = { done: null };
    this.copy = async () => {
      try {
        await navigator.clipboard.writeText(this.props.text);
        this.setState({ done: 'Copied.' });
      } catch {
        this.setState({ done: 'This browser did not let the page copy: select the text and copy it.' });
      }
    };
  }

  /**
   * @override
   * @param {{ text: string, label: string }} props
   * @param {{ done: string | null }} state
   */
  render({ label }, { done }) {
    return html`<span class="copy"><button type="button" class="secondary" onClick=${this.copy}>${label}</button>
      <span role="status" class="muted">${done ?? ''}</span></span>`;
  }
}
