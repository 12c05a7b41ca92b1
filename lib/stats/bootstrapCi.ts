import { percentile } from './percentile';
import { seededRandom } from './seededRandom';

export interface ConfidenceInterval {
  low: number;
  high: number;
  /** Replicates where the statistic was defined (null replicates are skipped). */
  replicates: number;
}

/**
 * Percentile bootstrap 95% interval: draw `replicates` resamples of the n units with replacement
 * (seeded), evaluate `statistic` on each resample's indices, and take the 2.5th and 97.5th percentiles
 * (numpy linear interpolation) of the defined values. Null when no replicate is defined.
 * Reference: Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13.
 */
export function bootstrapCi(
  n: number,
  statistic: (indices: Uint32Array) => number | null,
  options: { replicates: number; seed: number; level?: number },
): ConfidenceInterval | null {
  const random = seededRandom(options.seed);
  const level = options.level ?? 0.95;
  const values: number[] = [];
  const indices = new Uint32Array(n);
  for (let b = 0; b < options.replicates; b++) {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    const v = statistic(indices);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  const tail = ((1 - level) / 2) * 100;
  return { low: percentile(values, tail), high: percentile(values, 100 - tail), replicates: values.length };
}
