import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Prints plain closing lines after vitest's own summary: per project (unit, integration, slow) its files and the
 * time its files took (summed: files run side by side), the slowest files, then the run's wall time and `N passed, N failed, N
 * skipped`. A file that failed outside its tests (a hook, an import) and an unhandled error each count as one
 * failure, so the line never says 0 failed when the run fails.
 */
/** How many of the slowest files the summary names: where the next minute of CI time is. */
const SLOWEST = 15;

export default class SummaryReporter implements Reporter {
  #started = performance.now();

  onTestRunStart(): void {
    this.#started = performance.now();
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const projects = new Map<string, { files: number; ms: number }>();
    const files: { name: string; ms: number }[] = [];
    for (const mod of testModules) {
      let failedInModule = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedInModule++;
        else skipped++;
      }
      if (mod.state() === 'failed' && failedInModule === 0) failedInModule = 1;
      failed += failedInModule;
      const project = projects.get(mod.project.name) ?? { files: 0, ms: 0 };
      project.files++;
      project.ms += mod.diagnostic().duration;
      projects.set(mod.project.name, project);
      files.push({ name: mod.relativeModuleId, ms: mod.diagnostic().duration });
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
    for (const [name, { files, ms }] of projects) {
      process.stdout.write(`\n${name || 'tests'}: ${files} files, ${seconds(ms)} of file time`);
    }
    process.stdout.write('\nslowest files:');
    for (const { name, ms } of files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) {
      process.stdout.write(`\n  ${seconds(ms).padStart(6)}  ${name}`);
    }
    process.stdout.write(`\nwall time: ${seconds(performance.now() - this.#started)}`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
