// A workspace's export saved as a file: the API's export (JSON, or a zip of CSVs) through the console's proxy,
// named after the workspace and the day. Used by the Workspaces page and the Account page.
import { ApiFailure, api } from './api.js';
import { locale } from './format.js';
import { ROUTES } from './routes.js';
import { Component, html, Notice, Problem } from './ui.js';

/** @typedef {'json' | 'csv'} ExportFormat */

/**
 * The file's name: `expense-<workspace name>-<YYYY-MM-DD>.<json|zip>`, the name as the person sees it (letters of
 * every script kept; only what file systems refuse is replaced) and the browser's own day.
 * @param {string} name
 * @param {ExportFormat} format
 */
export function exportFileName(name, format) {
  const safe =
    name
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced here
      .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '-')
      .replace(/\s+/g, ' ')
      .replace(/^[\s.-]+|[\s.-]+$/g, '')
      .slice(0, 80) || 'workspace';
  // en-CA writes dates as YYYY-MM-DD.
  const day = new Date().toLocaleDateString('en-CA');
  return `expense-${safe}-${day}.${format === 'csv' ? 'zip' : 'json'}`;
}

/** @param {number} bytes */
function size(bytes) {
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'kilobyte'] : [bytes / 1_000_000, 'megabyte'];
  return new Intl.NumberFormat(locale(), { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}

/**
 * Hands a file to the browser's downloads: a link to the file's object URL, clicked. Navigating to a `blob:` URL of
 * this page is allowed by the console's CSP as it is (no directive governs downloads).
 * @param {Blob} blob
 * @param {string} name
 */
function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the URL after click() returns: it is let go a minute later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * @typedef {{ workspaceId: string, name: string }} ExportProps
 * @typedef {{ busy: ExportFormat | null, saved: string | null, error: unknown }} ExportState
 */

/** The two export buttons of one workspace (JSON, CSV zip), with what happened. */
/** @extends {Component<ExportProps, ExportState>} */
export class ExportButtons extends Component {
  constructor() {
    super();
    /** @type {ExportState} */
    this.state = { busy: null, saved: null, error: null };
  }

  /** @param {ExportFormat} format */
  async download(format) {
    if (this.state.busy) return;
    const { workspaceId, name } = this.props;
    this.setState({ busy: format, saved: null, error: null });
    try {
      /** @type {{ blob: Blob }} */
      const { blob } = await api(ROUTES.exportWorkspace, {
        params: { workspaceId },
        query: { format: format === 'csv' ? 'csv' : undefined },
        file: true,
      });
      const file = exportFileName(name, format);
      saveFile(blob, file);
      this.setState({ busy: null, saved: `${file} (${size(blob.size)})` });
    } catch (error) {
      const problem =
        error instanceof ApiFailure
          ? error
          : { message: 'The download was cut short; nothing was saved.', hint: 'Try again.' };
      this.setState({ busy: null, error: problem });
    }
  }

  /**
   * @override
   * @param {ExportProps} props
   * @param {ExportState} state
   */
  render({ name }, { busy, saved, error }) {
    return html`<div class="exports">
      <button type="button" class="secondary" aria-busy=${busy === 'json' ? 'true' : undefined}
        onClick=${() => this.download('json')}>Download “${name}” as JSON</button>
      <button type="button" class="secondary" aria-busy=${busy === 'csv' ? 'true' : undefined}
        onClick=${() => this.download('csv')}>Download “${name}” as CSV (zip)</button>
      ${busy ? html`<${Notice}>Preparing the export of “${name}”…<//>` : null}
      ${saved ? html`<${Notice} kind="success">Exported “${name}”: ${saved}, in your browser’s downloads.<//>` : null}
      <${Problem} error=${error} />
    </div>`;
  }
}
