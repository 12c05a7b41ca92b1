import { percentile } from '../../../lib/stats/percentile';
import { mulberry32StateAfter } from '../../../lib/stats/seededRandom';
import { runReplicates, type KernelPlan } from '../parallel/runReplicates';

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
  const G = groups[0]!.length;
  const groupStart = new Int32Array(G + 1);
  for (let g = 0; g < G; g++) {
    const n = groups[0]![g]!.length;
    if (groups.some((gs) => gs[g]!.length !== n)) throw new Error('resampledMeansShared: group sizes differ between metrics');
    groupStart[g + 1] = groupStart[g]! + n;
  }
  const total = groupStart[G]!;
  // the metrics of one value side by side, so one draw reads them from one cache line
  const rows = new Float64Array(total * metrics);
  for (let m = 0; m < metrics; m++) {
    for (let g = 0; g < G; g++) {
      const v = groups[m]![g]!;
      for (let i = 0; i < v.length; i++) rows[(groupStart[g]! + i) * metrics + m] = v[i]!;
    }
  }
  const plan: ResampledMeansPlan = { groupStart, rows, metrics, replicates };
  const means = runReplicates('resampledMeans', resampledMeansReplicates, plan, seed, G * replicates, metrics, total / Math.max(1, G));
  for (let g = 0; g < G; g++) {
    if (groupStart[g + 1] === groupStart[g]) continue;
    for (let m = 0; m < metrics; m++) {
      const v = new Float64Array(replicates);
      for (let r = 0; r < replicates; r++) v[r] = means[(g * replicates + r) * metrics + m]!;
      out[m]![g] = v;
    }
  }
  return out;
}

/** resampledMeansShared's groups, one after another: group g owns values groupStart[g] … groupStart[g+1] − 1. */
export interface ResampledMeansPlan extends KernelPlan {
  groupStart: Int32Array;
  /** Value i of metric m at i·metrics + m. */
  rows: Float64Array;
  metrics: number;
  replicates: number;
}

/**
 * Units from … to − 1 of resampledMeansShared: unit g·replicates + r is replicate r of group g, whose draws
 * come after those of every earlier group's replicates and of its own earlier ones (the order of one
 * sequential pass). out[unit·metrics + m] = that resample's mean of metric m (NaN for an empty group).
 */
export function resampledMeansReplicates(plan: ResampledMeansPlan, seed: number, from: number, to: number, out: Float64Array): void {
  const { groupStart, rows, metrics, replicates } = plan;
  const sums = new Float64Array(metrics);
  for (let unit = from; unit < to; unit++) {
    const g = Math.floor(unit / replicates);
    const r = unit - g * replicates;
    const start = groupStart[g]!;
    const n = groupStart[g + 1]! - start;
    if (n === 0) {
      for (let m = 0; m < metrics; m++) out[unit * metrics + m] = NaN;
      continue;
    }
    let state = mulberry32StateAfter(seed, start * replicates + r * n); // mulberry32 of seededRandom, inlined
    if (metrics === 1) {
      // the common case of one metric alone: the sum kept in a register
      let sum = 0;
      for (let i = 0; i < n; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        sum += rows[start + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)]!;
      }
      out[unit] = sum / n;
      continue;
    }
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const base = (start + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)) * metrics;
      for (let m = 0; m < metrics; m++) sums[m]! += rows[base + m]!;
    }
    for (let m = 0; m < metrics; m++) out[unit * metrics + m] = sums[m]! / n;
  }
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
