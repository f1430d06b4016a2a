import { EXPORT_RELATIONS } from '@expense/wire';
import { csvField, neutraliseFormula } from '@expense/wire/csv';
import { Zip, ZipDeflate } from 'fflate';
import { relationColumns } from './columns.js';
import type { ExportHeader } from './header.js';
import { PIECE_CHARS } from './json-export.js';
import {
  type Batch,
  CHANGE_COLUMNS,
  CHANGE_ROW_COLUMNS,
  changeBatches,
  changeRowBatches,
  type ExportSource,
  forget,
  newestChange,
  relationBatches,
} from './reader.js';

/**
 * The CLI's cell rule (OWASP "CSV Injection", @expense/wire/csv): a cell that starts with =, +, -, @, tab or CR and
 * is not a number gets a `'` in front. The CSV zip is for spreadsheets; the JSON export is the exact one (and the one
 * restore reads).
 */
function cell(value: string | null): string {
  return value === null ? '' : csvField(neutraliseFormula(value));
}

const encoder = new TextEncoder();
const line = (cells: (string | null)[]) => encoder.encode(`${cells.map(cell).join(',')}\r\n`);

/**
 * The CSV export: a zip (deflated, streamed with fflate) of one CSV per relation and for the history, and a
 * manifest.json with the header, each file's columns and row count, written last (when the counts are known).
 * Bytes are handed on as the zip makes them; nothing but the current batch is held. A batch's lines go to the zip
 * in pieces of up to PIECE_CHARS characters (json-export.ts), encoded once a piece rather than once a row: a
 * million small buffers less, and ~10 MiB less RSS on the server at a million entries (bench/export-memory.ts).
 */
export async function* csvExport(source: ExportSource, header: ExportHeader): AsyncGenerator<Uint8Array> {
  const since = await newestChange(source);
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else out.push(chunk);
  });
  const drain = function* () {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift()!;
  };
  const files: { name: string; relation: string; columns: string[]; rows: number }[] = [];
  const sources: [string, string[], () => AsyncGenerator<Batch>][] = [];
  for (const relation of EXPORT_RELATIONS) {
    const columns = await relationColumns(source.db, relation);
    sources.push([
      relation,
      columns.map((c) => c.name),
      () => relationBatches(source, relation, columns, 'text'),
    ]);
  }
  sources.push(['changes', [...CHANGE_COLUMNS], () => changeBatches(source, 'text')]);
  sources.push(['change_rows', [...CHANGE_ROW_COLUMNS], () => changeRowBatches(source, 'text')]);
  for (const [relation, columns, batches] of sources) {
    const name = `${relation}.csv`;
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(line(columns));
    let rows = 0;
    for await (const batch of batches()) {
      let piece = '';
      for (const row of batch as (string | null)[][]) {
        piece += `${row.map(cell).join(',')}\r\n`;
        if (piece.length >= PIECE_CHARS) {
          file.push(encoder.encode(piece));
          piece = '';
        }
      }
      if (piece) file.push(encoder.encode(piece));
      rows += batch.length;
      forget(batch);
      yield* drain();
    }
    file.push(new Uint8Array(0), true);
    files.push({ name, relation, columns, rows });
    yield* drain();
  }
  const manifest = {
    ...header,
    files,
    cells:
      "CSV per RFC 4180, CRLF line ends, UTF-8; empty cell = NULL; timestamps ISO 8601 UTC; a cell that starts with =, +, -, @, tab or CR and is not a number has a ' in front (spreadsheet safety). The JSON export is the exact one, and the one restore reads.",
    changedDuringExport: (await newestChange(source)) !== since,
  };
  const file = new ZipDeflate('manifest.json', { level: 6 });
  zip.add(file);
  file.push(encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`), true);
  zip.end();
  yield* drain();
}
