/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): the slowest first, so that the
 * short files fill the workers' gaps at the end instead of one long file running alone after them.
 *
 * vitest's own sequencer keeps each project's files together (projects by name, then longest first), so a
 * slow unit file (e.g. the PostgreSQL restart tests) would start last. This one sorts the whole run:
 * files that failed last time first, then by the duration vitest remembered from the last run
 * (node_modules/.vite/vitest/…/results.json), longest first. Files it has no duration for (a fresh clone,
 * CI, a new file) go by their project's usual cost (browser, then integration, then unit) and then by size.
 * The order changes nothing a test sees: every file runs in a fresh worker of its own.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Typical seconds per file of each project (from a run on the 2-core box), for files with no remembered duration. */
const PROJECT_ESTIMATE_MS: Record<string, number> = { browser: 20_000, integration: 6_000, unit: 1_000 };

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`);
    const size = (spec: TestSpecification) => cache.getFileStats(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.size ?? 0;
    const estimate = (spec: TestSpecification) => known(spec)?.duration ?? PROJECT_ESTIMATE_MS[spec.project.name] ?? 0;
    return [...files].sort((a, b) => {
      const failed = Number(Boolean(known(b)?.failed)) - Number(Boolean(known(a)?.failed));
      if (failed !== 0) return failed;
      const byDuration = estimate(b) - estimate(a);
      if (byDuration !== 0) return byDuration;
      return size(b) - size(a);
    });
  }
}
