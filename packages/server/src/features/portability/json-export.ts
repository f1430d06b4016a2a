import { EXPORT_RELATIONS } from '@expense/wire';
import { relationColumns } from './columns.js';
import type { ExportHeader } from './header.js';
import {
  type Batch,
  changeBatches,
  changeRowBatches,
  type ExportSource,
  forget,
  newestChange,
  relationBatches,
} from './reader.js';

/**
 * The most text handed on at a time (characters; at most 64 KiB, as two-byte text): below V8's large-object size
 * (128 KiB), so that a piece still waiting for the socket during a young collection stays young and dies there. A
 * batch's text as one string (~400 KiB for 1,000 entries) was a large object, and one alive at a young collection
 * was moved to the old generation at once, to stay until a full collection (bench/export-memory.ts).
 */
export const PIECE_CHARS = 32 * 1024;

/**
 * The JSON export (docs/export-format.md) as text chunks, written as it is read: the header fields, then each
 * relation's rows, then the history (changes, change_rows), then `end` with the counts. One row a line, so the
 * document is also easy to read with line tools. A document without `end` was cut short.
 */
export async function* jsonExport(source: ExportSource, header: ExportHeader): AsyncGenerator<string> {
  const since = await newestChange(source);
  const counts: Record<string, number> = {};
  const head = JSON.stringify(header);
  yield `${head.slice(0, -1)},\n`;
  const arrays: [string, () => AsyncGenerator<Batch>][] = [
    ...EXPORT_RELATIONS.map(
      (relation) =>
        [
          relation,
          async function* () {
            yield* relationBatches(source, relation, await relationColumns(source.db, relation), 'json');
          },
        ] as [string, () => AsyncGenerator<Batch>],
    ),
    ['changes', () => changeBatches(source, 'json')],
    ['change_rows', () => changeRowBatches(source, 'json')],
  ];
  for (const [name, batches] of arrays) {
    let n = 0;
    yield `${JSON.stringify(name)}: [`;
    for await (const batch of batches()) {
      let piece: string[] = [];
      let chars = 0;
      for (const row of batch as string[]) {
        const text = n++ === 0 ? `\n${row}` : `,\n${row}`;
        if (chars + text.length > PIECE_CHARS && piece.length > 0) {
          yield piece.join('');
          piece = [];
          chars = 0;
        }
        piece.push(text);
        chars += text.length;
      }
      forget(batch);
      yield piece.join('');
    }
    counts[name] = n;
    yield `${n === 0 ? '' : '\n'}],\n`;
  }
  const changedDuringExport = (await newestChange(source)) !== since;
  yield `"end": ${JSON.stringify({ counts, changedDuringExport })}\n}\n`;
}
