import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in: the slow project first, then e2e and integration, then unit. vitest's own sequencer starts
 * projects in name order (integration, slow, unit), so the slow files (one to two minutes each, mostly waiting on a
 * browser, a killed process or npm) all started last and ran side by side at the end with nothing to overlap them;
 * started first, the shorter files fill the workers around them. Within a project, vitest's order (longest or
 * largest first).
 */
const RANK: Record<string, number> = { slow: 0, e2e: 1, integration: 1, unit: 2 };

export default class ExpenseSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => RANK[file.project.name] ?? 1;
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
