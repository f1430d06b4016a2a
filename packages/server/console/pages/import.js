// Import: a bank's CSV export read in the browser (File API) by the CLI's own import core (build/import-core.js,
// bundled from packages/import (@expense/import) by the server's build): the bank recognised, every row validated, a
// preview, and the count to add from a dry run of the same batches `expense import` sends (rows whose
// external_id is already there are skipped). Confirmed, the batches are sent as one change group: one entry of
// Activity, with its change id.
import { apiCall, newIdempotencyKey } from '../api.js';
import { money } from '../format.js';
import { ROUTES } from '../routes.js';
import { rows as selectRows } from '../sql.js';
import { ChangeId, Component, html, NeedsWorkspace, Notice, Problem } from '../ui.js';

/**
 * @typedef {import('../types/import-core').ImportCore} ImportCore
 * @typedef {import('../types/import-core').PreparedLedger} PreparedLedger
 * @typedef {import('../types/import-core').LedgerBatch} Batch
 * @typedef {import('../types/console').ApiError} ApiError
 */

/** Rows of the file shown before the import. */
const PREVIEW_ROWS = 10;

// This page's words (the CLI's messages name its options; here the person sees the form's fields).
const WORDS = {
  intro:
    'Load a CSV export from your bank. The bank is recognised from the file, every row is checked here in the browser, and you see how many rows are new before anything is saved. Rows imported before are skipped, so importing an overlapping export again adds only the new ones.',
  missingCore:
    'The import module is missing on this server (console/build/import-core.js is made by the server’s build).',
  /**
   * @param {string} example
   * @param {string[]} formats
   */
  ambiguousDates: (example, formats) =>
    `The dates can be read two ways (${example}): choose ${formats.join(' or ')} under “Dates”.`,
  nothingNew: 'Nothing to add: every row of this file is already in the workspace.',
  noAccount: 'The file does not say which account its rows belong to.',
  noAccountHint: 'Type the account in the Account field (e.g. checking), then check the file again.',
};

/** The CLI's option names as the fields of this form. */
/** @type {[RegExp, string][]} */
const OPTION_FIELDS = [
  [/\s*\((?:--[a-z-]+|[^()]*--[a-z-]+[^()]*) to say otherwise\)/g, ''],
  [/--account <id>|--account/g, 'the Account field'],
  [/--preset [a-z0-9-]+|--preset/g, 'the Bank choice'],
  [/--date-format [A-Z/]+|--date-format/g, 'the Dates choice'],
  [/--encoding latin1|--encoding/g, 'another encoding'],
];

/**
 * @template {string | undefined} T
 * @param {T} text
 * @returns {T}
 */
function personWords(text) {
  if (!text) return text;
  let out = /** @type {string} */ (text);
  for (const [pattern, words] of OPTION_FIELDS) out = out.replace(pattern, words);
  return /** @type {T} */ (out);
}

/** A failure of the import core (CliError) or of the API, with a person's words. */
/**
 * @param {unknown} thrown
 * @returns {ApiError}
 */
function problemOf(thrown) {
  /** @type {Partial<ApiError> & { details?: Record<string, unknown> }} */
  const error = typeof thrown === 'object' && thrown !== null ? thrown : { message: String(thrown) };
  if (error?.code === 'usage_error' && /^No column for account_id\.$/.test(error.message ?? ''))
    return { message: WORDS.noAccount, code: 'missing_account', hint: WORDS.noAccountHint, details: {} };
  return {
    message: personWords(error.message ?? String(thrown)),
    code: error?.code ?? 'error',
    hint: personWords(error?.hint),
    details: error?.details ?? {},
  };
}

/** Dates that read two ways: the person chooses under "Dates" (the CLI asks in a terminal). */
class AmbiguousDates extends Error {
  /**
   * @param {string[]} formats
   * @param {string} example
   */
  constructor(formats, example) {
    super(WORDS.ambiguousDates(example, formats));
    this.code = 'ambiguous_dates';
  }
}

/** Where the server's build writes the import core (a variable: the type checker does not read the bundle). */
const IMPORT_CORE = '../build/import-core.js';
/** @type {Promise<import('../types/import-core').ImportCore> | undefined} */
let corePromise;
/** The bundled import core, loaded when the page is first opened. */
function importCore() {
  corePromise ??= import(IMPORT_CORE);
  return corePromise;
}

/**
 * @typedef {object} ImportPreview
 * @property {string} name the file's
 * @property {PreparedLedger} prepared
 * @property {Batch[]} batches
 * @property {{ fileDigest: string, fingerprint: string }} keys
 * @property {number} toAdd
 * @property {number} present
 *
 * @typedef {object} ImportState
 * @property {ImportCore | null} core
 * @property {File | null} file
 * @property {string} account
 * @property {string} preset
 * @property {string} dateFormat
 * @property {string[]} accounts
 * @property {boolean} checking
 * @property {number | null} progress
 * @property {ImportPreview | null} preview
 * @property {boolean} importing
 * @property {{ summary: import('../types/import-core').ImportSummary, changeId: string | null } | null} done
 * @property {ApiError | null} error
 * @property {import('../types/import-core').RowProblem[]} problems
 */

/** @extends {Component<import('../types/console').PageProps, ImportState>} */
export class ImportPage extends Component {
  /** @param {import('../types/console').PageProps} props */
  constructor(props) {
    super(props);
    /** @type {ImportState} */
    this.state = {
      core: null,
      file: null,
      account: '',
      preset: '',
      dateFormat: '',
      accounts: [],
      checking: false,
      progress: null,
      preview: null,
      importing: false,
      done: null,
      error: null,
      problems: [],
    };
    /** @param {SubmitEvent} event */
    this.check = (event) => {
      event.preventDefault();
      this.preview();
    };
    this.confirm = () => this.run();
  }

  /** @override */
  componentDidMount() {
    importCore().then(
      (core) => this.setState({ core }),
      () => this.setState({ error: { message: WORDS.missingCore, code: 'missing_module' } }),
    );
    if (this.props.workspaceId)
      selectRows('SELECT DISTINCT account_id FROM ledger_entries ORDER BY account_id', this.props.workspaceId)
        .then((found) => this.setState({ accounts: found.map((r) => String(r.account_id)) }))
        .catch(() => {});
  }

  /** The file read and validated here, then its batches dry-run: how many rows are new. */
  async preview() {
    const { core, file } = this.state;
    if (!core || !file) return;
    this.setState({ checking: true, preview: null, done: null, error: null, problems: [], progress: null });
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const prepared = await core.prepareImport(
        {
          fileName: file.name,
          bytes,
          account: this.state.account.trim() || undefined,
          preset: this.state.preset || undefined,
          dateFormat: this.state.dateFormat || undefined,
        },
        {
          chooseDateFormat: async (/** @type {string[]} */ formats, /** @type {string} */ example) => {
            throw new AmbiguousDates(formats, example);
          },
          workspaceCurrency: async () => this.props.settings?.currency ?? 'USD',
        },
      );
      // This page asks for no other target than ledger entries (a bank file's rows).
      if (prepared.into !== 'ledger_entries') throw new Error('A bank file gives ledger entries.');
      const batches = core.planBatches(prepared.rows, prepared.target);
      // The batches' Idempotency-Keys as the CLI makes them, plus this preview's own nonce: a retry of this
      // import after a failure resumes (the kept answers replay), while a later import of the same file (after a
      // revert in Activity) is sent afresh and adds what the dry run counted.
      const keys = {
        fileDigest: core.sha256Hex(bytes),
        fingerprint: `${prepared.fingerprint}\n${crypto.randomUUID()}`,
      };
      const dry =
        prepared.rows.length === 0
          ? { inserted: 0, skipped: 0 }
          : await core.runBatches(batches, prepared.target, keys, this.sender(), {
              dryRun: true,
              onProgress: (done) => this.setState({ progress: done }),
            });
      this.setState({
        preview: { name: file.name, prepared, batches, keys, toAdd: dry.inserted, present: dry.skipped },
      });
    } catch (error) {
      const cause = error instanceof core.BatchFailed ? error.cause : error;
      const details =
        /** @type {{ details?: { problems?: import('../types/import-core').RowProblem[] } } | null} */ (
          cause
        );
      this.setState({ error: problemOf(cause), problems: details?.details?.problems ?? [] });
    } finally {
      this.setState({ checking: false, progress: null });
    }
  }

  /** The batches sent for real, one change group: one entry of Activity. */
  async run() {
    const { core, preview } = this.state;
    if (!core || !preview) return;
    this.setState({ importing: true, error: null, progress: 0 });
    /** @type {string[]} */
    const changeIds = [];
    try {
      const summary = await core.runBatches(
        preview.batches,
        preview.prepared.target,
        preview.keys,
        this.sender(changeIds),
        {
          dryRun: false,
          onProgress: (done) => this.setState({ progress: done }),
          changeGroup: { id: crypto.randomUUID(), label: `import ${preview.name}` },
        },
      );
      this.setState({ done: { summary, changeId: changeIds.at(-1) ?? null }, preview: null });
    } catch (error) {
      const cause = error instanceof core.BatchFailed ? error.cause : error;
      const problem = problemOf(cause);
      if (error instanceof core.BatchFailed)
        problem.hint = `${problem.hint ? `${problem.hint} ` : ''}Rows before line ${error.batch.rows[0]?.line} are in; importing the same file again skips them and continues.`;
      this.setState({ error: problem });
    } finally {
      this.setState({ importing: false, progress: null });
    }
  }

  /** How the core's batch runner calls the API: /sql/execute through the console's proxy. */
  /**
   * @param {string[]} [changeIds] where the changes' ids are put
   * @returns {import('../types/import-core').BatchRunner}
   */
  sender(changeIds) {
    const workspaceId = this.props.workspaceId;
    return async (sql, options) => {
      const { data, replayed } = await apiCall(ROUTES.sqlExecute, {
        body: options.dryRun ? { sql, dryRun: true } : { sql },
        workspaceId,
        idempotencyKey: options.idempotencyKey ?? (options.dryRun ? undefined : newIdempotencyKey()),
        changeGroup: options.changeGroup,
      });
      if (changeIds && data?.changeId) changeIds.push(data.changeId);
      return { status: 200, data, raw: data, instructions: [], actions: [], replayed };
    };
  }

  /**
   * @override
   * @param {import('../types/console').PageProps} props
   * @param {ImportState} state
   */
  render({ workspaceId }, state) {
    if (!workspaceId) return html`<${NeedsWorkspace} />`;
    const { core, preview, done, error, problems, progress, checking, importing } = state;
    const busy = checking || importing;
    return html`
      <p class="muted">${WORDS.intro}</p>
      <form onSubmit=${this.check} aria-label="Bank file">
        <div class="row">
          <div><label for="import-file">Bank file (CSV)</label>
            <input id="import-file" type="file" accept=".csv,.txt,text/csv" required
              onChange=${(/** @type {import('../types/console').FileEvent} */ e) => this.setState({ file: e.currentTarget.files?.[0] ?? null, preview: null, done: null })} /></div>
          <div><label for="import-account">Account</label>
            <input id="import-account" list="import-accounts" value=${state.account} placeholder="e.g. checking"
              aria-describedby="import-account-help"
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ account: e.currentTarget.value, preview: null })} />
            <datalist id="import-accounts">${state.accounts.map((a) => html`<option value=${a} />`)}</datalist></div>
          <div><label for="import-preset">Bank</label>
            <select id="import-preset" value=${state.preset}
              onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ preset: e.currentTarget.value, preview: null })}>
              <option value="">Recognise from the file</option>
              ${core ? core.PRESET_NAMES.map((n) => html`<option value=${n}>${core.PRESETS[n].title}</option>`) : null}
            </select></div>
          <div><label for="import-dates">Dates</label>
            <select id="import-dates" value=${state.dateFormat}
              onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ dateFormat: e.currentTarget.value, preview: null })}>
              <option value="">Recognise from the file</option>
              ${(core?.DATE_FORMATS ?? []).map((f) => html`<option value=${f}>${f}</option>`)}
            </select></div>
        </div>
        <p id="import-account-help" class="muted">The account the rows are booked to, when the file does not name one.</p>
        <button type="submit" disabled=${!core || !state.file || busy}>Check file</button>
      </form>
      ${busy ? html`<p role="status">${checking ? 'Checking' : 'Importing'} the file…${progress === null ? '' : ` ${progress} rows done.`}</p>` : null}
      <${Problem} error=${error} />
      ${
        problems.length
          ? html`<div class="table-box" tabindex="0"><table>
              <caption class="muted">Rows to fix in the file</caption>
              <thead><tr><th scope="col">Line</th><th scope="col">Field</th><th scope="col">Problem</th></tr></thead>
              <tbody>${problems.slice(0, 50).map((p) => html`<tr><td class="num">${p.line}</td><td>${p.field ?? ''}</td><td>${personWords(p.message)}</td></tr>`)}</tbody>
            </table></div>`
          : null
      }
      ${preview ? this.previewBlock(preview, busy) : null}
      ${
        done
          ? html`<${Notice} kind="success">Imported ${done.summary.inserted} ${done.summary.inserted === 1 ? 'row' : 'rows'}${
              done.summary.skipped ? `; ${done.summary.skipped} already there were skipped` : ''
            }.${
              done.changeId
                ? html` One change in <a href="#/activity">Activity</a>: <${ChangeId} id=${done.changeId} />.`
                : ''
            }<//>`
          : null
      }
    `;
  }

  /** What the file holds and how many rows are new; amounts in each row's own currency. */
  /**
   * @param {ImportPreview} preview
   * @param {boolean} busy
   */
  previewBlock(preview, busy) {
    const { prepared, toAdd, present } = preview;
    const total = prepared.rows.length;
    const shown = prepared.rows.slice(0, PREVIEW_ROWS);
    return html`<section aria-labelledby="import-preview">
      <h2 id="import-preview">${preview.name}</h2>
      ${prepared.bank ? html`<p>Bank: <strong>${prepared.bank.title}</strong>${prepared.bank.recognised ? ' (recognised from the file)' : ''}.</p>` : null}
      ${prepared.notes
        .filter((/** @type {string} */ n) => !n.startsWith('Recognised:'))
        .map((/** @type {string} */ n) => html`<p class="muted">${personWords(n)}</p>`)}
      ${
        prepared.left.length
          ? html`<p class="muted">Left out: ${prepared.left.map((/** @type {{ line: number, reason: string }} */ l) => `line ${l.line} (${l.reason})`).join(', ')}.</p>`
          : null
      }
      <p class="lead" role="status"><strong>${toAdd} new ${toAdd === 1 ? 'row' : 'rows'} to add</strong> of ${total} in the file${
        present ? `; ${present} already there will be skipped` : ''
      }.</p>
      ${
        total
          ? html`<div class="table-box" tabindex="0"><table>
              <caption class="muted">${total > shown.length ? `The first ${shown.length} of ${total} rows` : `The ${total} ${total === 1 ? 'row' : 'rows'}`} of the file</caption>
              <thead><tr><th scope="col">Date</th><th scope="col">Account</th><th scope="col" class="num">Amount</th><th scope="col">Kind</th><th scope="col">Counterparty</th><th scope="col">Note</th></tr></thead>
              <tbody>${shown.map(
                (
                  /** @type {import('../types/import-core').PreparedLedger['rows'][number]} */ r,
                ) => html`<tr><td>${r.ts.slice(0, 10)}</td><td>${r.account_id}</td><td class="num">${money(r.amount, r.currency)}</td>
                  <td>${r.kind}${r.category ? html` <span class="muted">${r.category}</span>` : null}</td><td>${r.counterparty ?? ''}</td><td>${r.note ?? ''}</td></tr>`,
              )}</tbody>
            </table></div>`
          : null
      }
      ${
        toAdd === 0
          ? html`<${Notice}>${WORDS.nothingNew}<//>`
          : html`<button type="button" disabled=${busy} onClick=${this.confirm}>Import ${toAdd} ${toAdd === 1 ? 'row' : 'rows'}</button>
              <button type="button" class="secondary" disabled=${busy} onClick=${() => this.setState({ preview: null })}>Cancel</button>`
      }
    </section>`;
  }
}
