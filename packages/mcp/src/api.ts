import type {
  Action,
  ChangeRevertData,
  ChangesData,
  ImportData,
  ImportQuery,
  SchemaData,
  SqlResultData,
  WorkspacesData,
} from '@expense/wire';
import type { ReportData, ReportInput } from '@expense/wire/reports';

export type SqlEndpoint = '/sql/query' | '/sql/execute' | '/sql';

/** The API's error object, as http-api.md's envelope carries it. */
export interface ApiErrorObject {
  code: string;
  message: string;
  hint?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

/** A failure of an API call: the HTTP status, the error object and the legal next actions. */
export class McpApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiErrorObject,
    readonly actions: Action[] = [],
  ) {
    super(error.message);
    this.name = 'McpApiError';
  }
}

export interface PendingInvitation {
  workspaceId: string;
  workspaceName: string;
  invitedBy: { email: string };
  invitedAt: string;
}

export interface SqlCall {
  dryRun?: boolean;
  workspaceId?: string;
  idempotencyKey?: string;
  /** A dry run's token: the API commits the same SQL (or revert) once, wherever the dry run ran. */
  confirmToken?: string;
}

/** The `import` tool's call of POST /imports (the file is the body): its query, workspace and keys. */
export interface ImportCall {
  workspaceId?: string;
  dryRun?: boolean;
  /** A dry run's token: the API commits the same file (bytes, account, charges, currency) once. */
  confirmToken?: string;
  idempotencyKey?: string;
  name?: string;
  account?: string;
  /** How a card file whose sign cannot be told writes its charges. */
  charges?: 'positive' | 'negative';
  currency?: string;
}

/** POST /imports's query for a call (both transports send the same). */
export function importQuery(c: ImportCall): ImportQuery {
  const flag = (on: boolean | undefined) => (on ? ('true' as const) : undefined);
  const query: ImportQuery = {
    account: c.account,
    name: c.name,
    currency: c.currency,
    dryRun: flag(c.dryRun),
    chargesPositive: flag(c.charges === 'positive'),
    chargesNegative: flag(c.charges === 'negative'),
    confirmToken: c.confirmToken,
  };
  return Object.fromEntries(Object.entries(query).filter((e) => e[1] !== undefined)) as ImportQuery;
}

/** The API's answer with its instructions (notes an agent must relay are among them). */
export interface Instructed {
  instructions?: string[];
  /** The API answered from its Idempotency-Key store (a retried commit): nothing ran again. */
  replayed?: boolean;
}

/** `data.clock` of SQL results (http-api.md), where the server provides it. */
export type SqlResult = SqlResultData & {
  clock?: { now: string; today: string; timeZone: string };
} & Instructed;

/**
 * What the MCP tools need from the expense API, as the key they run under. The CLI implements it over HTTP
 * (its typed api layer), the server in-process over its own routes (every guard, limit and log the same).
 * Confirmation tokens are the API's (issued by dry runs, redeemed by commits), so any process can commit a token
 * another issued. Failures throw McpApiError.
 */
export interface McpApi {
  workspaces(): Promise<WorkspacesData>;
  /** Pending invitations; an empty list where the server has none. */
  invitations(): Promise<PendingInvitation[]>;
  schema(workspaceId?: string): Promise<SchemaData>;
  sql(endpoint: SqlEndpoint, sql: string, call?: SqlCall): Promise<SqlResult>;
  /** GET /changes (the `history` tool); absent where the server has no change history. */
  changes?(call?: { limit?: number; workspaceId?: string }): Promise<ChangesData>;
  /** GET /reports/{kind} (the `report` tool): one request, one snapshot, one point of the key's limits. */
  report(input: ReportInput, call?: { workspaceId?: string }): Promise<ReportData & Instructed>;
  /** POST /changes/{changeId}/revert (the `revert` tool). */
  revertChange?(changeId: string, call?: SqlCall): Promise<ChangeRevertData & Instructed>;
}

/**
 * POST /imports with the file's bytes as the body (the `import` tool), beside McpApi where an API has it (the CLI's,
 * the server's in-process one): the tool is listed where `importerOf` finds it.
 */
export interface McpImportApi {
  importFile(file: Uint8Array, call?: ImportCall): Promise<ImportData & Instructed>;
}

/** The API's importFile, where it has one. */
export function importerOf(api: McpApi): McpImportApi | undefined {
  const candidate = api as McpApi & Partial<McpImportApi>;
  return typeof candidate.importFile === 'function' ? (candidate as McpApi & McpImportApi) : undefined;
}
