/**
 * What the expansion attacks cost PostgreSQL, by expanded size: for each form and level, the wall time of
 * `EXPLAIN <statement>` (parse, rewrite and plan: the work no interrupt reaches) and the backend's peak memory
 * (VmHWM, read from /proc, so the database must run on this machine). Stops a form at the first level past
 * --max-ms. Needs a database holding the expense relations (test/check/expense-schema.ts).
 *   node --conditions=@expense/source --import tsx bench/expansion-cost.ts --url postgres://postgres@127.0.0.1/db [--max-ms 3000]
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { EXPANSION_FORMS, expansionAttack } from '../test/check/expansion-attacks.js';
import { expandedSize } from './expanded-size.js';

const argAfter = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const url = argAfter('url') ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const maxMs = Number(argAfter('max-ms') ?? 3000);

for (const form of EXPANSION_FORMS) {
  for (let level = 1; level <= 30; level++) {
    const sql = expansionAttack(form, level);
    const size = expandedSize(sql, 'query');
    if (typeof size === 'number' && size < 5_000) continue;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const started = performance.now();
    let error = '';
    try {
      await client.query(`EXPLAIN ${sql}`);
    } catch (e) {
      error = ` (${(e as Error).message.slice(0, 60)})`;
    }
    const ms = performance.now() - started;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    await client.end();
    console.log(
      `${form}\tlevel ${level}\t${sql.length} chars\tsize ${size}\t${Math.round(ms)} ms\t${Math.round(Number(hwm) / 1024)} MB${error}`,
    );
    if (ms > maxMs) break;
  }
}
