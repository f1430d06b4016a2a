import { EXPORT_RELATIONS } from '@expense/wire';
import { relationColumns } from './columns.js';
import type { ExportHeader } from './header.js';
import {
  type Batch,
  changeBatches,
  changeRowBatches,
  type ExportSource,
  newestChange,
  relationBatches,
} from './reader.js';

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
      yield `${n === 0 ? '\n' : ',\n'}${(batch as string[]).join(',\n')}`;
      n += batch.length;
    }
    counts[name] = n;
    yield `${n === 0 ? '' : '\n'}],\n`;
  }
  const changedDuringExport = (await newestChange(source)) !== since;
  yield `"end": ${JSON.stringify({ counts, changedDuringExport })}\n}\n`;
}
