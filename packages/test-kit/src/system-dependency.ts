// Suites that need something not every machine has (PgBouncer, Chromium, gnome-keyring, the built CLI): outside
// CI a machine without it skips the suite with one line that names what is missing and how to get it; under CI
// (or EXPENSE_REQUIRE_ALL=1) the file fails at once with that line, so that a missing part never passes unnoticed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Whether `command` is on the PATH. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether every suite must run: `CI` set (to anything but `false` or `0`) or `EXPENSE_REQUIRE_ALL=1`. */
export function requireAll(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') || env.EXPENSE_REQUIRE_ALL === '1';
}

/** The line that says what `suite` misses and how to get it. */
export function missingMessage(suite: string, missing: readonly string[], install: string): string {
  return `${suite}: ${missing.join(', ')} missing; install with: ${install}`;
}

/**
 * Whether `suite` runs: yes when nothing is missing. When something is, it throws under CI or
 * EXPENSE_REQUIRE_ALL=1 (the test file fails with the message), and otherwise says why on stderr and gives no.
 */
export function suiteRuns(
  suite: string,
  missing: readonly string[],
  install: string,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (missing.length === 0) return true;
  const message = missingMessage(suite, missing, install);
  if (requireAll(env)) throw new Error(`${message} (CI or EXPENSE_REQUIRE_ALL=1: every suite must run)`);
  console.warn(`skipped: ${message}`);
  return false;
}

/** The command that builds the CLI (and what it imports) for the suites that run `dist/bin.js`. */
export const BUILD_CLI = 'pnpm --filter @expense/cli... build';

/** Whether `suite`, which runs the built `file`, runs: as suiteRuns, `build` making the file. */
export function suiteNeedsBuild(
  suite: string,
  file: string,
  build: string,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return suiteRuns(suite, existsSync(file) ? [] : [file], build, env);
}
