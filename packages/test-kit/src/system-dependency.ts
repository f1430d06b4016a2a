// Suites that need a program of the system (PgBouncer, gnome-keyring, …): CI installs it; outside CI a machine
// without it skips the suite with one line that names the install command, and under CI=true the suite runs
// and fails, so that a missing package never passes unnoticed there.
import { execFileSync } from 'node:child_process';

/** Whether `command` is on the PATH. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `suite` runs: yes when nothing is missing or under CI=true; otherwise no, after one line on stderr
 * saying what is missing and how to install it.
 */
export function suiteRuns(suite: string, missing: readonly string[], install: string): boolean {
  if (missing.length === 0 || process.env.CI === 'true') return true;
  console.warn(`skipped ${suite}: ${missing.join(', ')} not installed; install with: ${install}`);
  return false;
}
