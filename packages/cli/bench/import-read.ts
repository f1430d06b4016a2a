// The import reader's time on 10,000-row exports (issue 37): file bytes to validated rows, no server. Two layouts:
// Chase checking (a preset, the fast path) and a European file in no bank's layout (`;`, decimal comma, day-first
// dates, a balance column: recognition from the content). Median of --rounds runs of each, after one warm-up.
// The goal: ≤ 1.2x of the reader before issue 37, kept in bench/import-read.baseline.json (made with --save before
// the change, from the CLI's own import core then).
//   node --conditions=@expense/source --import tsx packages/cli/bench/import-read.ts [--rounds 7] [--save]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareImport } from '../src/import/prepare.js';

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

function european(): string {
  const lines = ['Datum;Omschrijving;Bedrag;Saldo'];
  let balance = 0;
  const comma = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');
  for (let r = 0; r < ROWS; r++) {
    const day = String((r % 28) + 1).padStart(2, '0');
    const cents = (r % 5 !== 0 ? -1 : 1) * ((r % 400) * 100 + 100 + (r % 100));
    balance += cents;
    lines.push(`${day}.02.2026;Winkel ${r};${comma(cents)};${comma(balance)}`);
  }
  return `${lines.join('\n')}\n`;
}

const hooks = {
  chooseDateFormat: async () => {
    throw new Error('dates read two ways');
  },
  workspaceCurrency: async () => 'EUR',
};

async function time(name: string, text: string): Promise<number> {
  const bytes = new TextEncoder().encode(text);
  const once = async () => {
    const started = performance.now();
    const prepared = await prepareImport({ fileName: name, bytes, account: 'checking' }, hooks);
    const ms = performance.now() - started;
    if (prepared.rows.length !== ROWS) throw new Error(`${name}: ${prepared.rows.length} rows`);
    return ms;
  };
  await once();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) times.push(await once());
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const results: Record<string, number> = {
  'chase-checking (preset)': await time('chase.csv', chase()),
  'european, no layout (recognised)': await time('eu.csv', european()),
};
let baseline: Record<string, number> | undefined;
try {
  baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Record<string, number>;
} catch {}
console.log(`| ${ROWS} rows | median ms | baseline ms | ratio |\n|---|---|---|---|`);
for (const [name, ms] of Object.entries(results)) {
  const base = baseline?.[name];
  console.log(
    `| ${name} | ${ms.toFixed(1)} | ${base?.toFixed(1) ?? '-'} | ${base ? (ms / base).toFixed(2) : '-'} |`,
  );
}
if (process.argv.includes('--save')) writeFileSync(BASELINE, `${JSON.stringify(results, null, 2)}\n`);
