import type { ChangeRevertData, ChangesData } from '../changes.js';
import type { Action } from '../envelope.js';
import type { ReportData, ReportInput } from '../reports.js';
import type { SchemaData } from '../schema.js';
import type { SqlResultData } from '../sql.js';
import type { WorkspacesData } from '../workspaces.js';

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
