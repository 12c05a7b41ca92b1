import { percentile } from '../stats/percentile';

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
