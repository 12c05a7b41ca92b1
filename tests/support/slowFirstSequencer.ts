/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): files that failed last time first, then
 * the browser project, then integration, then unit, each by file size (largest first), so that the short unit files
 * fill the workers' gaps at the end instead of one long file running alone after them. vitest's own sequencer keeps
 * each project's files together by name, so a slow unit file (e.g. the PostgreSQL restart tests) would start last.
 *
 * The durations vitest remembers from the last run are deliberately not used: ordered by them, the heaviest files
 * (the participant e2e, the crash test, the layout e2e, the wizard console, each 50–75 s) all start at once and
 * fight for the two cores. On the 2-core box, 2026-12-03, 1656 tests, 7b45753: 590.5 s of vitest (10 min 17 s in
 * all) ordered by remembered durations; 451.7 s (8 min 0 s) with no durations remembered, as on a clean clone; and
 * 454.0 s (8 min 1 s) in this order with the durations remembered but unused.
 * The order changes nothing a test sees: every file runs in a fresh worker of its own.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Typical seconds per file of each project (from a run on the 2-core box): the order of the projects. */
const PROJECT_ESTIMATE_MS: Record<string, number> = { browser: 20_000, integration: 6_000, unit: 1_000 };

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`);
    const size = (spec: TestSpecification) => cache.getFileStats(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.size ?? 0;
    const estimate = (spec: TestSpecification) => PROJECT_ESTIMATE_MS[spec.project.name] ?? 0;
    return [...files].sort((a, b) => {
      const failed = Number(Boolean(known(b)?.failed)) - Number(Boolean(known(a)?.failed));
      if (failed !== 0) return failed;
      const byDuration = estimate(b) - estimate(a);
      if (byDuration !== 0) return byDuration;
      return size(b) - size(a);
    });
  }
}
