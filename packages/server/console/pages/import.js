// Import: a bank's CSV export read in the browser (File API) by the CLI's own import core (build/import-core.js,
// bundled from packages/import (@expense/import) by the server's build): the bank recognised, every row validated, a
// preview, and the count to add from a dry run of the same batches `expense import` sends (rows whose
// external_id is already there are skipped). Confirmed, the batches are sent as one change group: one entry of
// Activity, with its change id.
import { apiCall, newIdempotencyKey } from '../api.js';
import { day, money } from '../format.js';
import { ROUTES } from '../routes.js';
import { rows as selectRows } from '../sql.js';
import { ChangeId, Component, html, NeedsWorkspace, Notice, Problem } from '../ui.js';
import { consoleWords, SITUATION_CODES } from '../words.js';
import {
  COLUMN_CHOICES,
  columnOptions,
  dateIn,
  headerlessChoices,
  readColumns,
  readsNegative,
  recognisedChoices,
  signOptions,
} from './import-columns.js';

/**
 * @typedef {import('../types/import-core').ImportCore} ImportCore
 * @typedef {import('../types/import-core').PreparedLedger} PreparedLedger
 * @typedef {import('../types/import-core').LedgerBatch} Batch
 * @typedef {import('../types/import-core').ImportNote} ImportNote
 * @typedef {import('../types/console').ApiError} ApiError
 */

/** Rows of the file shown before the import. */
const PREVIEW_ROWS = 10;

// This page's words (the import core's refusals and notes are data: their situation, worded below for this form).
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
  /** @param {string} example */
  ambiguousSign: (example) =>
    `Which way this file’s amounts point cannot be told${example ? ` (${example})` : ''}.`,
  ambiguousSignHint:
    'Choose under “Signs”: “Charges are positive” for a card statement whose spending is written as positive numbers, or “As in the file” when money out is written negative.',
  /** @param {'out' | 'in'} lacking */
  lacking: (lacking) =>
    `Choose the ${lacking === 'out' ? 'money out' : 'money in'} column too: amounts come from both columns.`,
  columns:
    'What each column of the file holds, as read from the file. Change one and the preview follows. “Balance” and “Ignore” add nothing to the entries; a column read as the payee, the note or the amount stays so until you choose another column for it.',
};

/** The ledger's kinds in words. */
/** @type {Record<string, string>} */
const KIND_WORDS = { spend: 'Spending', income: 'Income', transfer: 'Transfer' };

/** The field of this form that overrides a note's decision (none: the form has no such setting). */
/** @type {Partial<Record<string, string>>} */
const SETTING_FIELDS = { dateFormat: 'choose under “Dates”', account: 'type it in the Account field' };

/**
 * A note of the import core (its kind and facts) in this page's words: the form's fields, never an option.
 * @param {ImportNote} note
 * @returns {string}
 */
function noteText(note) {
  switch (note.kind) {
    case 'said':
      return note.facts.text;
    case 'settable': {
      const field = SETTING_FIELDS[note.facts.setting];
      return field === undefined ? `${note.facts.text}.` : `${note.facts.text} (${field} to say otherwise).`;
    }
    case 'charges':
      return note.facts.charges === 'positive'
        ? 'Signs: charges are positive, as chosen under “Signs”.'
        : 'Signs: as in the file, as chosen under “Signs”.';
  }
}

/**
 * A row problem in this form's words: the problem, then the field of the form that would change it (the import
 * core says which setting as data, `fix`).
 * @param {import('../types/import-core').RowProblem} problem
 */
function rowProblemWords(problem) {
  switch (problem.fix?.setting) {
    case 'decimalComma':
      return `${problem.message} — a decimal comma?`;
    case 'dateFormat':
      return `${problem.message} — choose its order under “Dates” (${problem.fix.orders})`;
    case 'account':
      return `${problem.message} (give the column a value, or type it in the Account field)`;
    default:
      return problem.message;
  }
}

/**
 * A card payment of the import, as the pairing planned it: with an entry of another account (`with`, its day when
 * known), or waiting on the clearing account for its other side.
 * @typedef {{ line: number, with?: string, day?: string, waiting?: string }} TransferLine
 */

/**
 * @param {TransferLine} t
 * @returns {string}
 */
function transferWords(t) {
  if (t.waiting)
    return `Line ${t.line} is a card payment: a transfer whose other side (the account that paid) is not imported yet; it waits on “${t.waiting}” until that account's file is.`;
  return `Line ${t.line} is a card payment: a transfer with ${t.with}'s ${t.day ? `entry of ${day(t.day.slice(0, 10))}` : 'payment'}.`;
}

/**
 * The card payments of a paired import, from its steps and the clearing legs it still books (no text parsed).
 * @param {ImportCore} core
 * @param {Awaited<ReturnType<ImportCore['pairWithWorkspace']>>} paired
 * @returns {TransferLine[]}
 */
function transfersOf(core, paired) {
  /** @type {TransferLine[]} */
  const lines = [
    ...paired.steps.map((step) =>
      step.kind === 'pair'
        ? { line: step.row.line, with: step.entry.account_id, day: step.entry.ts }
        : { line: step.row.line, with: step.from },
    ),
    ...paired.rows
      .filter((row) => row.account_id === core.CLEARING_ACCOUNT)
      .map((row) => ({ line: row.line, waiting: core.CLEARING_ACCOUNT })),
  ];
  return lines.sort((a, b) => a.line - b.line);
}

/**
 * A failure of the import core, of this page or of the API, in a person's words: a refusal of the import core by its
 * situation (the catalogue's console words, served as words.js), else by its code where the catalogue knows it (its
 * hint is the command line's); the page's own refusals and the API's (the proxy words them) as they are.
 * @param {unknown} thrown
 * @param {ImportCore | null} core
 * @returns {ApiError}
 */
function problemOf(thrown, core) {
  /** @type {Partial<ApiError> & { details?: Record<string, unknown> }} */
  const error = typeof thrown === 'object' && thrown !== null ? thrown : { message: String(thrown) };
  const details = error.details ?? {};
  if (core && thrown instanceof core.ImportError) {
    const situation = thrown.situation;
    const code = situation ? (SITUATION_CODES[situation.variant] ?? 'invalid_request') : thrown.code;
    const words = consoleWords({
      code,
      variant: situation?.variant,
      facts: situation?.facts,
      message: thrown.message,
    });
    // A refusal the catalogue does not know keeps its message; its hint names the command line's options.
    return { code, message: words?.message ?? thrown.message, hint: words?.hint, details };
  }
  return {
    message: error.message ?? String(thrown),
    code: error.code ?? 'error',
    hint: error.hint,
    details,
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

/** A card file whose sign the file does not tell: the person chooses under "Signs" (the CLI asks in a terminal). */
class AmbiguousSign extends Error {
  /** @param {string} example */
  constructor(example) {
    super(WORDS.ambiguousSign(example));
    this.code = 'ambiguous_sign';
    this.hint = WORDS.ambiguousSignHint;
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
 * @property {TransferLine[]} transfers each card payment: paired with an account's entry, or waiting for its other side
 * @property {PreparedLedger['rows']} rows what the import books, in the file's order (a matched payment's leg
 *   included, its clearing leg not)
 *
 * @typedef {object} ImportState
 * @property {ImportCore | null} core
 * @property {File | null} file
 * @property {string} account
 * @property {string} preset
 * @property {string} dateFormat
 * @property {'' | 'negative' | 'positive'} signs
 * @property {import('./import-columns.js').FileColumns | null} columns the CSV file's columns, as read here
 * @property {string[]} choices what each column holds
 * @property {number[]} changed the columns the person set
 * @property {string[]} accounts
 * @property {boolean} checking
 * @property {number | null} progress
 * @property {ImportPreview | null} preview
 * @property {boolean} importing
 * @property {{ summary: import('../types/import-core').ImportSummary, changeId: string | null, transfers: string | null } | null} done
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
      signs: '',
      columns: null,
      choices: [],
      changed: [],
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
    /** Each preview's number: a later one supersedes an answer still on its way. */
    this.generation = 0;
  }

  /** The file picked: its columns read here, for the Columns panel. */
  /** @param {File | null} file */
  async pick(file) {
    this.setState({ file, preview: null, done: null, columns: null, choices: [], changed: [] });
    if (!file) return;
    // Decoded as the import core reads it (its encoding found from the bytes).
    const core = await importCore();
    const columns = readColumns(core.decodeBytes(new Uint8Array(await file.arrayBuffer())).text);
    if (this.state.file !== file) return;
    const blank = columns ? columns.header.map(() => 'ignore') : [];
    const prepared = this.state.preview?.prepared;
    this.setState({
      columns,
      choices: columns && prepared ? this.recognised(columns, prepared, blank) : blank,
    });
  }

  /**
   * What the import core read each column as, kept where the person chose otherwise.
   * @param {import('./import-columns.js').FileColumns} columns
   * @param {PreparedLedger} prepared
   * @param {string[]} choices
   */
  recognised(columns, prepared, choices) {
    const core = this.state.core;
    const bank = prepared.bank;
    const preset =
      core && bank && !bank.name.startsWith('generic')
        ? core.PRESETS[/** @type {import('../../../import/src/csv/presets.js').PresetName} */ (bank.name)]
        : undefined;
    const read = columns.headerless
      ? headerlessChoices(columns, prepared.rows[0], core?.DATE_FORMATS ?? [])
      : recognisedChoices(columns.header, prepared.notes, preset);
    const changed = new Set(this.state.changed);
    return choices.map((c, i) => (changed.has(i) ? c : (read[i] ?? c)));
  }

  /** A choice changed after a first check: the preview follows. */
  /** @param {Partial<ImportState>} change */
  rechoose(change) {
    const again = this.state.preview !== null || this.state.error !== null;
    this.setState({ ...change, preview: null, done: null }, () => {
      if (again) this.preview();
    });
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
    const { core, file, columns } = this.state;
    if (!core || !file) return;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    this.setState({ checking: true, preview: null, done: null, error: null, problems: [], progress: null });
    try {
      const chosen = columns ? columnOptions(columns, this.state.choices, new Set(this.state.changed)) : {};
      if (chosen.lacking)
        throw Object.assign(new Error(WORDS.lacking(chosen.lacking)), { code: 'incomplete_mapping' });
      const { lacking: _, ...columnRequest } = chosen;
      const bytes = new Uint8Array(await file.arrayBuffer());
      const prepared = await core.prepareImport(
        {
          fileName: file.name,
          bytes,
          account: this.state.account.trim() || undefined,
          preset: this.state.preset || undefined,
          dateFormat: this.state.dateFormat || undefined,
          ...columnRequest,
          ...signOptions(this.state.signs, chosen),
        },
        {
          chooseDateFormat: async (/** @type {string[]} */ formats, /** @type {string} */ example) => {
            throw new AmbiguousDates(formats, example);
          },
          chooseCharges: async (/** @type {string} */ example) => {
            throw new AmbiguousSign(example);
          },
          workspaceCurrency: async () => this.props.settings?.currency ?? 'USD',
        },
      );
      if (!current()) return;
      if (columns && prepared.format === 'csv' && prepared.into === 'ledger_entries')
        this.setState({ choices: this.recognised(columns, prepared, this.state.choices) });
      // This page asks for no other target than ledger entries (a bank file's rows).
      if (prepared.into !== 'ledger_entries') throw new Error('A bank file gives ledger entries.');
      // Card payments are transfers, paired with the paying account's entry when the workspace holds it (the
      // lookups and the batches of `expense import` and POST /v1/imports).
      const workspaceId = this.props.workspaceId;
      const paired = await core.pairWithWorkspace(prepared.rows, (sql) => selectRows(sql, workspaceId));
      if (!current()) return;
      const batches = core.pairedBatches(paired);
      // The batches' Idempotency-Keys as the CLI makes them, plus this preview's own nonce: a retry of this
      // import after a failure resumes (the kept answers replay), while a later import of the same file (after a
      // revert in Activity) is sent afresh and adds what the dry run counted.
      const keys = {
        fileDigest: core.sha256Hex(bytes),
        fingerprint: `${core.pairedFingerprint(prepared.fingerprint, prepared.rows, paired)}\n${crypto.randomUUID()}`,
      };
      const dry =
        prepared.rows.length === 0
          ? { inserted: 0, skipped: 0 }
          : await core.runBatches(batches, prepared.target, keys, this.sender(), {
              dryRun: true,
              onProgress: (done) => this.setState({ progress: done }),
            });
      if (!current()) return;
      this.setState({
        preview: {
          name: file.name,
          prepared,
          batches,
          keys,
          toAdd: dry.inserted,
          present: dry.skipped,
          transfers: transfersOf(core, paired),
          // The file's rows: a clearing leg is the other side of one of them (its line says so above).
          rows: core
            .fileRows([...paired.rows, ...paired.steps.map((step) => step.row)])
            .sort((a, b) => a.line - b.line),
        },
      });
    } catch (error) {
      if (!current()) return;
      const cause = error instanceof core.BatchFailed ? error.cause : error;
      const details =
        /** @type {{ details?: { problems?: import('../types/import-core').RowProblem[] } } | null} */ (
          cause
        );
      this.setState({ error: problemOf(cause, core), problems: details?.details?.problems ?? [] });
    } finally {
      if (current()) this.setState({ checking: false, progress: null });
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
      this.setState({
        done: {
          summary,
          changeId: changeIds.at(-1) ?? null,
          transfers: core.transfersLine(summary.transfers) ?? null,
        },
        preview: null,
      });
    } catch (error) {
      const cause = error instanceof core.BatchFailed ? error.cause : error;
      const problem = problemOf(cause, core);
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
              onChange=${(/** @type {import('../types/console').FileEvent} */ e) => this.pick(e.currentTarget.files?.[0] ?? null)} /></div>
          <div><label for="import-account">Account</label>
            <input id="import-account" list="import-accounts" value=${state.account} placeholder="e.g. checking"
              aria-describedby="import-account-help"
              onInput=${(/** @type {import('../types/console').FieldEvent} */ e) => this.setState({ account: e.currentTarget.value, preview: null })} />
            <datalist id="import-accounts">${state.accounts.map((a) => html`<option value=${a} />`)}</datalist></div>
          <div><label for="import-preset">Bank</label>
            <select id="import-preset" value=${state.preset}
              onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.rechoose({ preset: e.currentTarget.value, choices: state.choices.map(() => 'ignore'), changed: [] })}>
              <option value="">Recognise from the file</option>
              ${core ? core.PRESET_NAMES.map((n) => html`<option value=${n}>${core.PRESETS[n].title}</option>`) : null}
            </select></div>
          <div><label for="import-dates">Dates</label>
            <select id="import-dates" value=${state.dateFormat}
              onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.rechoose({ dateFormat: e.currentTarget.value })}>
              <option value="">Recognise from the file</option>
              ${this.dateChoices(state).map(({ format, reads }) => html`<option value=${format}>${reads ? `${format}: ${reads}` : format}</option>`)}
            </select></div>
          <div><label for="import-signs">Signs</label>
            <select id="import-signs" value=${state.signs}
              onChange=${(/** @type {import('../types/console').FieldEvent} */ e) => this.rechoose({ signs: /** @type {ImportState['signs']} */ (e.currentTarget.value) })}>
              ${this.signChoices(state).map(({ value, label }) => html`<option value=${value}>${label}</option>`)}
            </select></div>
        </div>
        <p id="import-account-help" class="muted">The account the rows are booked to, when the file does not name one.</p>
        ${state.columns && state.columns.header.length > 1 ? this.columnsPanel(state) : null}
        <button type="submit" disabled=${!core || !state.file || busy}>Check file</button>
      </form>
      ${busy ? html`<p role="status">${checking ? 'Checking' : 'Importing'} the file…${progress === null ? '' : ` ${progress} rows done.`}</p>` : null}
      <${Problem} error=${error} />
      ${
        problems.length
          ? html`<div class="table-box" tabindex="0"><table>
              <caption class="muted">Rows to fix in the file</caption>
              <thead><tr><th scope="col">Line</th><th scope="col">Field</th><th scope="col">Problem</th></tr></thead>
              <tbody>${problems.slice(0, 50).map((p) => html`<tr><td class="num">${p.line}</td><td>${p.field ?? ''}</td><td>${rowProblemWords(p)}</td></tr>`)}</tbody>
            </table></div>`
          : null
      }
      ${preview ? this.previewBlock(preview, busy) : null}
      ${
        done
          ? html`<${Notice} kind="success">Imported ${done.summary.inserted} ${done.summary.inserted === 1 ? 'row' : 'rows'}${
              done.transfers ? ` (${done.transfers})` : ''
            }${done.summary.skipped ? `; ${done.summary.skipped} already there were skipped` : ''}.${
              done.changeId
                ? html` One change in <a href="#/activity">Activity</a>: <${ChangeId} id=${done.changeId} />.`
                : ''
            }<//>`
          : null
      }
    `;
  }

  /**
   * The first row's date in each format that reads it, as the person's browser writes dates (formats it does not
   * fit are not offered; the one chosen stays).
   * @param {ImportState} state
   * @returns {{ format: string, reads: string | null }[]}
   */
  dateChoices(state) {
    const formats = /** @type {readonly string[]} */ (this.state.core?.DATE_FORMATS ?? []);
    const at = state.choices.indexOf('date');
    const first = at === -1 ? undefined : state.columns?.first[at];
    if (!first) return formats.map((format) => ({ format, reads: null }));
    return formats
      .map((format) => {
        const iso = dateIn(first, format);
        return { format, reads: iso ? `${first} is ${day(iso)}` : null };
      })
      .filter((c) => c.reads !== null || c.format === state.dateFormat);
  }

  /**
   * The ways round the amounts can be read, each shown on the first row's amount.
   * @param {ImportState} state
   * @returns {{ value: string, label: string }[]}
   */
  signChoices(state) {
    const at = state.choices.indexOf('amount');
    const first = at === -1 ? '' : (state.columns?.first[at] ?? '');
    const negative = readsNegative(first);
    const as = (/** @type {boolean} */ out) =>
      first ? `: ${first} is ${out ? 'money out' : 'money in'}` : '';
    return [
      { value: '', label: 'Recognise from the file' },
      { value: 'negative', label: `As in the file${as(negative)}` },
      { value: 'positive', label: `Charges are positive (a card statement)${as(!negative)}` },
    ];
  }

  /**
   * Each column of the file with its header, two of its values, and what it holds.
   * @param {ImportState} state
   */
  columnsPanel(state) {
    const columns = /** @type {import('./import-columns.js').FileColumns} */ (state.columns);
    const short = (/** @type {string} */ v) => (v.length > 24 ? `${v.slice(0, 23)}…` : v);
    return html`<fieldset>
      <legend>Columns</legend>
      <p class="muted">${WORDS.columns}</p>
      <div class="row">${columns.header.map(
        (name, i) => html`<div>
          <label for=${`import-column-${i}`}>${name}</label>
          <select id=${`import-column-${i}`} value=${state.choices[i] ?? 'ignore'} aria-describedby=${`import-column-${i}-values`}
            onChange=${(/** @type {import('../types/console').FieldEvent} */ e) =>
              this.rechoose({
                choices: state.choices.map((c, j) => (j === i ? e.currentTarget.value : c)),
                changed: [...new Set([...state.changed, i])],
              })}>
            ${COLUMN_CHOICES.filter((c) => !columns.headerless || !['out', 'in'].includes(c.value)).map(
              (c) => html`<option value=${c.value}>${c.label}</option>`,
            )}
          </select>
          <div id=${`import-column-${i}-values`} class="muted">${
            columns.samples[i]
              ?.filter((v) => v !== '')
              .map(short)
              .join(' · ') || 'empty'
          }</div>
        </div>`,
      )}</div>
    </fieldset>`;
  }

  /** What the file holds and how many rows are new; amounts in each row's own currency. */
  /**
   * @param {ImportPreview} preview
   * @param {boolean} busy
   */
  previewBlock(preview, busy) {
    const { prepared, rows, toAdd, present } = preview;
    const total = rows.length;
    const shown = rows.slice(0, PREVIEW_ROWS);
    return html`<section aria-labelledby="import-preview">
      <h2 id="import-preview">${preview.name}</h2>
      ${prepared.bank ? html`<p>Bank: <strong>${prepared.bank.title}</strong>${prepared.bank.recognised ? ' (recognised from the file)' : ''}.</p>` : null}
      ${prepared.noted
        .filter((note) => !(note.kind === 'said' && note.facts.text.startsWith('Recognised:')))
        .map((note) => html`<p class="muted">${noteText(note)}</p>`)}
      ${preview.transfers.map((n) => html`<p class="muted">${transferWords(n)}</p>`)}
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
              <thead><tr><th scope="col">Date</th><th scope="col">Account</th><th scope="col" class="num">Amount</th><th scope="col">Kind</th><th scope="col">Payee</th><th scope="col">Note</th></tr></thead>
              <tbody>${shown.map(
                (
                  /** @type {import('../types/import-core').PreparedLedger['rows'][number]} */ r,
                ) => html`<tr><td>${day(r.ts.slice(0, 10))}</td><td>${r.account_id}</td><td class="num">${money(r.amount, r.currency)}</td>
                  <td>${KIND_WORDS[r.kind] ?? r.kind}${r.category ? html` <span class="muted">${r.category}</span>` : null}</td><td>${r.counterparty ?? ''}</td><td>${r.note ?? ''}</td></tr>`,
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
