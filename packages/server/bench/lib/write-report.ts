import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_DIR } from './paths.js';

/** Writes the report of the runs in bench-results/ (bench-results/report/: see scripts/bench/report.ts); docs/ is curated from it. */
export function writeReport(): void {
  spawnSync(process.execPath, ['--import', 'tsx', join(REPO_DIR, 'scripts', 'bench', 'report.ts')], {
    cwd: REPO_DIR,
    stdio: 'inherit',
  });
}
