import { spearman, type Correlation } from '../../../lib/stats/spearman';
import { partialSpearman } from '../../../lib/stats/partialSpearman';
import { gather } from './taskGroups';

export interface CountedCorrelation extends Correlation {
  n: number;
}

/** Spearman ρ(Q, C) among one task's scored sessions; null when constant or n < 3. */
export function qualityCostSpearman(indices: Int32Array, quality: Float64Array, cost: Float64Array): Correlation | null {
  return spearman(gather(quality, indices), gather(cost, indices));
}

/**
 * Partial Spearman ρ(C, S | Q) for one Likert item S over the task's scored sessions where S is present
 * (pairwise-complete rows). Null when fewer than four rows or a residual is constant.
 */
export function partialCostLikert(
  indices: Int32Array,
  quality: Float64Array,
  cost: Float64Array,
  item: Float64Array,
): CountedCorrelation | null {
  const rows = Array.from(indices).filter((i) => !Number.isNaN(item[i]!));
  const r = partialSpearman(gather(cost, rows), gather(item, rows), gather(quality, rows));
  return r && { n: rows.length, ...r };
}

/** Spearman between two columns over the rows where both are present; null when undefined. */
export function pairwiseSpearman(x: Float64Array, y: Float64Array, indices?: ArrayLike<number>): CountedCorrelation | null {
  const rows: number[] = [];
  const n = indices ? indices.length : x.length;
  for (let k = 0; k < n; k++) {
    const i = indices ? indices[k]! : k;
    if (!Number.isNaN(x[i]!) && !Number.isNaN(y[i]!)) rows.push(i);
  }
  const r = spearman(gather(x, rows), gather(y, rows));
  return r && { n: rows.length, ...r };
}
