import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_DIR } from './paths.js';

/** Regenerates docs/benchmarks.md and the numbers section of docs/security.md from bench-results/. */
export function regenerateDocs(): void {
  if (process.env.EXPENSE_PROOF_NO_DOCS === '1') return;
  spawnSync(process.execPath, ['--import', 'tsx', join(REPO_DIR, 'scripts', 'bench', 'report.ts')], {
    cwd: REPO_DIR,
    stdio: 'inherit',
  });
}
