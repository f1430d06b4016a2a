// `pnpm --filter @expense/server bench`: this package's benchmarks, one after the other (the root `pnpm bench`
// also runs the guard's and regenerates docs/benchmarks.md). Arguments go to the SQL throughput benchmark.
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const cwd = dirname(dirname(fileURLToPath(import.meta.url)));
const source = ['--conditions=@expense/source', '--import', 'tsx'];
let ok = true;
for (const [file, args] of [
  ['bench/sql-throughput.ts', process.argv.slice(2)],
  ['bench/import.ts', []],
  ['bench/fx-rebuild.ts', []],
]) {
  process.stderr.write(`\n== ${file}\n`);
  ok = spawnSync(process.execPath, [...source, file, ...args], { cwd, stdio: 'inherit' }).status === 0 && ok;
}
process.exit(ok ? 0 : 1);
