/**
 * Dimension and overall scores from task tallies, for a chosen multiset of tasks (all gated tasks, or a
 * bootstrap resample): dimension test score = Σ test values / Σ test runs over the gated tasks' runs,
 * overall = mean of the defined dimension scores. On the 0–1 scale here; reports multiply by 100.
 */
import type { TaskTally } from './taskTallies';

/** Test score of one dimension over `tasks` (repeats count again), using only gated tasks; null when none. */
export function dimensionValue(tasks: readonly TaskTally[], arm: 'alone' | 'test' | 'calm' = 'test'): number | null {
  let sum = 0;
  let n = 0;
  for (const t of tasks) {
    if (!t.gated) continue;
    sum += t[arm].sum;
    n += t[arm].n;
  }
  return n > 0 ? sum / n : null;
}

/** Mean of the defined values; null when none is defined. */
export function overallValue(values: ReadonlyArray<number | null>): number | null {
  const defined = values.filter((v): v is number => v !== null);
  return defined.length > 0 ? defined.reduce((a, b) => a + b, 0) / defined.length : null;
}

/** Tasks grouped by dimension (dimension names sorted, tasks in id order). */
export function byDimension(tallies: Iterable<TaskTally>): Map<string, TaskTally[]> {
  const groups = new Map<string, TaskTally[]>();
  for (const t of tallies) groups.set(t.dimension, [...(groups.get(t.dimension) ?? []), t]);
  for (const list of groups.values()) list.sort((a, b) => a.task.localeCompare(b.task));
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}
