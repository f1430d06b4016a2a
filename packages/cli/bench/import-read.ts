// The import reader's CPU time on 10,000-row exports (issue 37): file bytes to validated rows, no server. Two layouts:
// Chase checking (a preset, the fast path) and a European file in no bank's layout (`;`, decimal comma, day-first
// dates, a balance column: recognition from the content); and a Polish file in UTF-8 and in Windows-1250, whose
// encoding is found from its bytes. Median of --rounds runs of each, after one warm-up.
// The goal: ≤ 1.2x of the reader before issue 37. On a shared machine a saved time says little, so the reader before
// it is timed in the same run, in turns with today's, when given: extract it with
//   git archive 4eed7c1 packages/cli/src packages/cli/package.json | tar -x -C /tmp/old-cli
//   ln -s "$PWD/packages/cli/node_modules" /tmp/old-cli/packages/cli/node_modules
// and pass --previous /tmp/old-cli/packages/cli/src/import/prepare.ts. Without it the times are compared with
// bench/import-read.baseline.json (made with --save before the change, on a busier machine).
//   node --conditions=@expense/source --import tsx packages/cli/bench/import-read.ts [--rounds 7] [--save] [--previous <prepare.ts>]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '@expense/test-kit';
import { prepareImport } from '../src/import/prepare.js';

type Prepare = typeof prepareImport;

const HERE = dirname(fileURLToPath(import.meta.url));
const BASELINE = join(HERE, 'import-read.baseline.json');
const ROWS = 10_000;
const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 7;

function chase(): string {
  const lines = ['Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #'];
  let balance = 0;
  for (let r = 0; r < ROWS; r++) {
    const day = String((r % 28) + 1).padStart(2, '0');
    const spend = r % 5 !== 0;
    const cents = (spend ? -1 : 1) * ((r % 400) * 100 + 100 + (r % 100));
    balance += cents;
    lines.push(
      `${spend ? 'DEBIT' : 'CREDIT'},02/${day}/2026,"SHOP ${r} OAKLAND CA",${(cents / 100).toFixed(2)},${spend ? 'DEBIT_CARD' : 'ACH_CREDIT'},${(balance / 100).toFixed(2)},,`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A table in no bank's layout: `;`, decimal commas, day-first dates, a running balance; each row's text by `text`. */
function euroTable(header: string, text: (row: number) => string): string {
  const lines = [header];
  let balance = 0;
  const comma = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');
  for (let r = 0; r < ROWS; r++) {
    const day = String((r % 28) + 1).padStart(2, '0');
    const cents = (r % 5 !== 0 ? -1 : 1) * ((r % 400) * 100 + 100 + (r % 100));
    balance += cents;
    lines.push(`${day}.02.2026;${text(r)};${comma(cents)};${comma(balance)}`);
  }
  return `${lines.join('\n')}\n`;
}

const european = () => euroTable('Datum;Omschrijving;Bedrag;Saldo', (r) => `Winkel ${r}`);
/** A Polish account's export: the same table with Polish payees, whose letters are not ASCII. */
const polish = () =>
  euroTable('Data operacji;Opis transakcji;Kwota;Saldo po transakcji', (r) => `Płatność kartą Żabka ${r}`);

/** Windows-1250 bytes of a text whose only letters beyond ASCII are the Polish ones written here. */
const CP1250: Record<string, number> = { ł: 0xb3, ś: 0x9c, ć: 0xe6, ą: 0xb9, Ż: 0xaf };
const windows1250 = (text: string) => Uint8Array.from(text, (c) => CP1250[c] ?? c.charCodeAt(0));

const hooks = {
  chooseDateFormat: async () => {
    throw new Error('dates read two ways');
  },
  workspaceCurrency: async () => 'EUR',
};

const p = process.argv.indexOf('--previous');
const previous: Prepare | undefined =
  p >= 0
    ? ((await import(pathToFileURL(process.argv[p + 1]!).href)) as { prepareImport: Prepare }).prepareImport
    : undefined;

/** Median ms of today's reader and, in turns with it, of the previous one. */
async function time(
  name: string,
  text: string | Uint8Array,
): Promise<{ now: number; before: number | undefined }> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const once = async (prepare: Prepare) => {
    // CPU time (user + system) of this process: on a shared machine the wall time is mostly waiting for a core.
    const started = process.cpuUsage();
    const prepared = await prepare({ fileName: name, bytes, account: 'checking' }, hooks);
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    if (prepared.rows.length !== ROWS) throw new Error(`${name}: ${prepared.rows.length} rows`);
    return ms;
  };
  await once(prepareImport);
  if (previous) await once(previous);
  const now: number[] = [];
  const before: number[] = [];
  for (let r = 0; r < rounds; r++) {
    now.push(await once(prepareImport));
    if (previous) before.push(await once(previous));
  }
  return { now: median(now), before: previous ? median(before) : undefined };
}

const timed = {
  'chase-checking (preset)': await time('chase.csv', chase()),
  'european, no layout (recognised)': await time('eu.csv', european()),
  // The encoding found from the bytes (chardet and the readings' misreadings), beside the same file in UTF-8.
  'polish, UTF-8': await time('pl.csv', polish()),
  'polish, Windows-1250 (encoding found)': await time('pl.csv', windows1250(polish())),
};
const results: Record<string, number> = Object.fromEntries(Object.entries(timed).map(([k, v]) => [k, v.now]));
let baseline: Record<string, number> | undefined;
try {
  baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Record<string, number>;
} catch {}
console.log(
  `| ${ROWS} rows | median CPU ms | previous reader, same run | ratio | saved baseline (wall) | ratio |\n|---|---|---|---|---|---|`,
);
for (const [name, { now, before }] of Object.entries(timed)) {
  const base = baseline?.[name];
  console.log(
    `| ${name} | ${now.toFixed(1)} | ${before?.toFixed(1) ?? '-'} | ${before ? (now / before).toFixed(2) : '-'} | ${base?.toFixed(1) ?? '-'} | ${base ? (now / base).toFixed(2) : '-'} |`,
  );
}
if (process.argv.includes('--save')) writeFileSync(BASELINE, `${JSON.stringify(results, null, 2)}\n`);
