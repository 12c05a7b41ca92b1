/**
 * The task × arm × seed grid a model's results should fill, and the cells without a run (CIB's build
 * refuses to publish with runs missing; here they are counted and warned about, and `--strict` refuses).
 * Tasks: every task any subject in the scored runs ran; seeds: 1…n, n the seeds the runs' settings asked
 * for (else the largest seed seen). People in the seat (subject kind "participant") have no grid.
 */
import type { TeamworkRun } from '../../../common/teamworkRun';

export const GRID_ARMS = ['alone', 'calm', 'test'] as const;

export function missingRuns(modelRuns: readonly TeamworkRun[], allTasks: readonly string[]): number | null {
  if (modelRuns.length === 0 || modelRuns.some((r) => r.subject?.kind === 'participant')) return null;
  const asked = Math.max(0, ...modelRuns.map((r) => r.settings?.seeds ?? 0));
  const seeds = asked > 0 ? asked : Math.max(...modelRuns.map((r) => r.seed));
  const present = new Set(modelRuns.filter((r) => r.seed >= 1 && r.seed <= seeds).map((r) => `${r.task}\u0000${r.arm}\u0000${r.seed}`));
  return allTasks.length * GRID_ARMS.length * seeds - present.size;
}
