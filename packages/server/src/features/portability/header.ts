import { EXPORT_FORMAT, EXPORT_VERSION } from '@expense/wire';
import { ApiError } from '../../platform/http/api-error.js';
import type { ExportSource } from './reader.js';

/** What heads every export (the JSON document, and the CSV zip's manifest). */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  workspace: { workspaceId: string; name: string; createdAt: string };
}

export async function exportHeader(source: ExportSource): Promise<ExportHeader> {
  const { rows } = await source.db.query<{ workspace_id: string; name: string; created_at: Date }>(
    'SELECT workspace_id, name, created_at FROM expense_internal.workspaces WHERE workspace_id = $1',
    [source.workspaceId],
  );
  const row = rows[0];
  if (!row) throw new ApiError('workspace_not_found', 'No workspace with this id is available to you.');
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    workspace: { workspaceId: row.workspace_id, name: row.name, createdAt: row.created_at.toISOString() },
  };
}

/** A file name for the export: the workspace's name in safe characters and the day. */
export function exportFileName(header: ExportHeader, extension: 'json' | 'zip'): string {
  const slug =
    header.workspace.name
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase()
      .slice(0, 40) || 'workspace';
  return `expense-${slug}-${header.exportedAt.slice(0, 10)}.${extension}`;
}
