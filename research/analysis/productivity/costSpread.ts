import { gather } from './taskGroups';
import { percentile } from '../../../lib/stats/percentile';

export interface CostSpread {
  quality: number;
  n: number;
  min: number;
  max: number;
  /** max/min; null when min is 0. */
  ratio: number | null;
  /** Quartiles of cost within the level (numpy linear percentiles) — for box plots at large n. */
  q1: number;
  median: number;
  q3: number;
  /** Sessions with cost 0 (they cannot be drawn on the log axis; the report counts them in a note). */
  n_zero: number;
  /** Smallest cost above 0 (the log axis' lower end), null when every cost is 0. */
  min_positive: number | null;
}

/** Cost range within each quality level of one task (the paper's "70× within the same rating"). */
export function costSpread(indices: Int32Array, quality: Float64Array, cost: Float64Array): CostSpread[] {
  const q = gather(quality, indices);
  const c = gather(cost, indices);
  const levels = new Map<number, number[]>();
  for (let k = 0; k < q.length; k++) {
    const list = levels.get(q[k]!);
    if (list) list.push(c[k]!);
    else levels.set(q[k]!, [c[k]!]);
  }
  return [...levels]
    .sort((a, b) => a[0] - b[0])
    .map(([level, costs]) => {
      let min = Infinity;
      let max = -Infinity;
      let minPositive = Infinity;
      let zeros = 0;
      for (const x of costs) {
        if (x < min) min = x;
        if (x > max) max = x;
        if (x > 0 && x < minPositive) minPositive = x;
        if (x === 0) zeros++;
      }
      return {
        quality: level,
        n: costs.length,
        min,
        max,
        ratio: min === 0 ? null : max / min,
        q1: percentile(costs, 25),
        median: percentile(costs, 50),
        q3: percentile(costs, 75),
        n_zero: zeros,
        min_positive: Number.isFinite(minPositive) ? minPositive : null,
      };
    });
}
