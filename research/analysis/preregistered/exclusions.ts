/**
 * The plan's exclusions, in a fixed order: pilot, integrity flag, failed attention check, time on task below the
 * minimum, above the maximum, unscored. A session left out is counted under the first reason that applies, so
 * the counts add up to the number excluded.
 */
import type { PlanExclusions } from '../../../common/preregistration';
import type { ExclusionColumns } from './planInput';

export const EXCLUSION_REASONS = ['pilot', 'integrity_flag', 'failed_attention_check', 'time_below_minimum', 'time_above_maximum', 'unscored'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export function exclusionReason(plan: PlanExclusions, columns: ExclusionColumns | undefined, quality: number): ExclusionReason | null {
  const c = columns ?? { isPilot: false, flags: [], attentionPassed: null, durationS: null };
  if (plan.pilot && c.isPilot) return 'pilot';
  if (plan.integrity_flags.some((f) => c.flags.includes(f))) return 'integrity_flag';
  if (plan.failed_attention_check && c.attentionPassed === false) return 'failed_attention_check';
  const t = plan.time_on_task;
  if (t?.min_seconds !== undefined && c.durationS !== null && c.durationS < t.min_seconds) return 'time_below_minimum';
  if (t?.max_seconds !== undefined && c.durationS !== null && c.durationS > t.max_seconds) return 'time_above_maximum';
  if (plan.unscored && Number.isNaN(quality)) return 'unscored';
  return null;
}

export interface ExclusionCounts {
  total: number;
  included: number;
  excluded: Record<ExclusionReason, number>;
}

/** Which sessions stay (a mask over the dataset's sessions) and how many each reason left out. */
export function applyExclusions(plan: PlanExclusions, ids: readonly string[], quality: Float64Array, columns: Map<string, ExclusionColumns>): { keep: Uint8Array; counts: ExclusionCounts } {
  const keep = new Uint8Array(ids.length);
  const excluded = Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, 0])) as Record<ExclusionReason, number>;
  ids.forEach((id, i) => {
    const reason = exclusionReason(plan, columns.get(id), quality[i]!);
    if (reason) excluded[reason] += 1;
    else keep[i] = 1;
  });
  return { keep, counts: { total: ids.length, included: keep.reduce((a, b) => a + b, 0), excluded } };
}
