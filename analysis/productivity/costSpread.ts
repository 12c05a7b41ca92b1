import { gather } from './taskGroups';

export interface CostSpread {
  quality: number;
  n: number;
  min: number;
  max: number;
  /** max/min; null when min is 0. */
  ratio: number | null;
}

/** Cost range within each quality level of one task (the paper's "70× within the same rating"). */
export function costSpread(indices: Int32Array, quality: Float64Array, cost: Float64Array): CostSpread[] {
  const q = gather(quality, indices);
  const c = gather(cost, indices);
  const levels = new Map<number, CostSpread>();
  for (let k = 0; k < q.length; k++) {
    const level = levels.get(q[k]!);
    if (!level) levels.set(q[k]!, { quality: q[k]!, n: 1, min: c[k]!, max: c[k]!, ratio: null });
    else {
      level.n++;
      if (c[k]! < level.min) level.min = c[k]!;
      if (c[k]! > level.max) level.max = c[k]!;
    }
  }
  const out = [...levels.values()].sort((a, b) => a.quality - b.quality);
  for (const level of out) level.ratio = level.min === 0 ? null : level.max / level.min;
  return out;
}
