// Issue 40, "export of 1 million entries stays under 200 MB of server memory": the export lets go of each batch
// of rows once it has handed it on, so that when it reads the next batch it holds none of the rows before it, and
// hands the JSON on in pieces below V8's large-object size. A dead array that still held its rows kept every row
// put in it alive through V8's young collections until a full one (reader.ts, forget()), and a batch's text as
// one large string went to the old generation whenever it was still waiting for the socket: ~100 MiB of the
// server's RSS above its baseline before. The memory itself is measured by bench/export-memory.ts; here, what the
// code holds.
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../platform/storage/database.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { csvExport } from '../csv-export.js';
import { exportHeader } from '../header.js';
import { jsonExport, PIECE_CHARS } from '../json-export.js';
import { EXPORT_BATCH_ROWS } from '../reader.js';
import { seedWorkspace } from './seed.js';

const ENTRIES = 2500;

/**
 * The database seen through: each array of rows an export's batch statement returned, and how many rows those
 * arrays still held each time the export read its next batch.
 */
function observed(db: Queryable) {
  const batches: unknown[][] = [];
  const heldAtRead: number[] = [];
  const source: Queryable = {
    async query<R>(text: string, params?: unknown[]) {
      const batch = text.includes(`LIMIT ${EXPORT_BATCH_ROWS}`);
      if (batch) heldAtRead.push(batches.reduce((n, rows) => n + rows.length, 0));
      const result = await db.query<R>(text, params);
      if (batch) batches.push(result.rows as unknown[]);
      return result;
    },
  };
  return { source, batches, heldAtRead };
}

describe.each(ENGINES)('the export holds no batch it has written, on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let workspaceId: string;
  let entries: number;

  beforeAll(async () => {
    live = await startLive(engine);
    owner = await createUser(live.db);
    workspaceId = await addWorkspace(live.db, owner.userId, 'Household');
    await seedWorkspace(live, owner, workspaceId, ENTRIES);
    const { rows } = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
      [workspaceId],
    );
    entries = rows[0]!.n;
    // Three batches of the ledger at least: the second and third are read after one was written.
    expect(entries).toBeGreaterThan(2 * EXPORT_BATCH_ROWS);
  });
  afterAll(async () => live?.close());

  it('JSON: every batch read is emptied before the next is read, and the document is whole', async () => {
    const { source, batches, heldAtRead } = observed(live.db);
    const exportSource = { db: source, workspaceId };
    const chunks: string[] = [];
    for await (const chunk of jsonExport(exportSource, await exportHeader(exportSource))) chunks.push(chunk);

    expect(batches.length).toBeGreaterThanOrEqual(6);
    expect(heldAtRead).toEqual(heldAtRead.map(() => 0));
    expect(batches.map((rows) => rows.length)).toEqual(batches.map(() => 0));
    // Handed on in pieces below V8's large-object size (every row here is far shorter than a piece).
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(PIECE_CHARS);
    const doc = JSON.parse(chunks.join(''));
    expect(doc.ledger_entries).toHaveLength(entries);
    expect(doc.end.counts.ledger_entries).toBe(entries);
    expect(doc.change_rows.length).toBeGreaterThan(0);
  });

  it('CSV: every batch read is emptied before the next is read, and each file is whole', async () => {
    const { source, batches, heldAtRead } = observed(live.db);
    const exportSource = { db: source, workspaceId };
    const chunks: Uint8Array[] = [];
    for await (const chunk of csvExport(exportSource, await exportHeader(exportSource))) chunks.push(chunk);

    expect(batches.length).toBeGreaterThanOrEqual(6);
    expect(heldAtRead).toEqual(heldAtRead.map(() => 0));
    expect(batches.map((rows) => rows.length)).toEqual(batches.map(() => 0));
    const files = unzipSync(Buffer.concat(chunks));
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(manifest.files).toContainEqual(
      expect.objectContaining({ relation: 'ledger_entries', rows: entries }),
    );
    // CRLF ends each record (a line break inside a cell, as the seeded notes hold, is a lone LF).
    const ledger = strFromU8(files['ledger_entries.csv']!);
    expect(ledger.split('\r\n').filter(Boolean).length).toBe(1 + entries);
  });
});
