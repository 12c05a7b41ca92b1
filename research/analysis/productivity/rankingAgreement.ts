import { averageRanks } from '../../../lib/stats/averageRanks';
import { pearson } from '../../../lib/stats/pearson';
import { gather } from './taskGroups';

/** Python's str(float) for grid keys: 1 → "1.0", 0.75 → "0.75". */
export function floatKey(x: number): string {
  return Number.isInteger(x) ? x.toFixed(1) : String(x);
}

/**
 * Spearman ρ between every pair of Pz vectors (over the scored sessions), keyed "a|b" for all ordered
 * pairs including a|a. Used for λ sensitivity and for the six cost definitions. Null when undefined.
 */
export function rankingAgreement(pzByName: Map<string, Float64Array>, scored: ArrayLike<number>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  // Spearman ρ = Pearson of average ranks; rank each vector once. Fewer than 3 sessions → null.
  const ranked = new Map([...pzByName].map(([name, pz]) => [name, averageRanks(gather(pz, scored))]));
  for (const [a, ra] of ranked) {
    for (const [b, rb] of ranked) {
      out[`${a}|${b}`] = ra.length < 3 ? null : pearson(ra, rb);
    }
  }
  return out;
}
