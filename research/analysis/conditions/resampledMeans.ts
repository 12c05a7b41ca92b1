import { percentile } from '../../../lib/stats/percentile';

/**
 * Bootstrap means of one group: `replicates` resamples of its values with replacement (draws from
 * `random`, in order), each reduced to its mean. Every interval of the condition comparison is a
 * percentile of a weighted sum of these vectors, so each group is resampled once per metric.
 */
export function resampledMeans(values: Float64Array, replicates: number, random: () => number): Float64Array {
  const n = values.length;
  const out = new Float64Array(replicates);
  for (let r = 0; r < replicates; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    out[r] = sum / n;
  }
  return out;
}

/**
 * resampledMeans for several metrics whose groups have the same sizes, in order (e.g. quality, cost and
 * Pz when every scored session has all three): groups[m][g] is group g of metric m. With one generator
 * seeded by `seed` and run through the groups in order (as resampledMeans with one seededRandom per
 * metric), the draws depend on the sizes only, so one draw serves every metric and out[m][g] equals
 * resampledMeans(groups[m][g], …) exactly (same indices, same summation order). Empty groups draw
 * nothing and give null. The mulberry32 step of seededRandom is inlined (same sequence).
 */
export function resampledMeansShared(groups: readonly Float64Array[][], replicates: number, seed: number): Array<Array<Float64Array | null>> {
  const metrics = groups.length;
  const out: Array<Array<Float64Array | null>> = groups.map((gs) => gs.map(() => null));
  if (metrics === 0) return out;
  const sums = new Float64Array(metrics);
  let state = seed >>> 0;
  for (let g = 0; g < groups[0]!.length; g++) {
    const n = groups[0]![g]!.length;
    if (groups.some((gs) => gs[g]!.length !== n)) throw new Error('resampledMeansShared: group sizes differ between metrics');
    if (n === 0) continue;
    // metric-major copies side by side so one draw reads its values from one cache line
    const rows = new Float64Array(n * metrics);
    for (let m = 0; m < metrics; m++) for (let i = 0; i < n; i++) rows[i * metrics + m] = groups[m]![g]![i]!;
    const means = groups.map(() => new Float64Array(replicates));
    if (metrics === 1) {
      // the common case of one metric alone: the sum kept in a register
      const out0 = means[0]!;
      for (let r = 0; r < replicates; r++) {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          state = (state + 0x6d2b79f5) >>> 0;
          let t = state;
          t = Math.imul(t ^ (t >>> 15), t | 1);
          t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
          sum += rows[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)]!;
        }
        out0[r] = sum / n;
      }
      out[0]![g] = out0;
      continue;
    }
    for (let r = 0; r < replicates; r++) {
      sums.fill(0);
      for (let i = 0; i < n; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        const base = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) * metrics;
        for (let m = 0; m < metrics; m++) sums[m]! += rows[base + m]!;
      }
      for (let m = 0; m < metrics; m++) means[m]![r] = sums[m]! / n;
    }
    for (let m = 0; m < metrics; m++) out[m]![g] = means[m]!;
  }
  return out;
}

/**
 * Σₖ wₖ·(aₖ[r] − bₖ[r]) per replicate (b may be null: then Σ wₖ·aₖ[r]). Null when any needed vector is
 * missing (no bootstrap requested) or there is nothing to combine.
 */
export function combine(terms: ReadonlyArray<readonly [number, Float64Array | null, Float64Array | null]>): Float64Array | null {
  if (terms.length === 0 || terms.some(([, a]) => a === null)) return null;
  const out = new Float64Array(terms[0]![1]!.length);
  for (const [w, a, b] of terms) {
    for (let r = 0; r < out.length; r++) out[r]! += w * (a![r]! - (b ? b[r]! : 0));
  }
  return out;
}

/** The 2.5th and 97.5th percentiles (numpy linear), or null. */
export function interval(replicates: Float64Array | null): [number, number] | null {
  return replicates && replicates.length > 0 ? [percentile(replicates, 2.5), percentile(replicates, 97.5)] : null;
}
