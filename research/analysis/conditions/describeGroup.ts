import { mean } from '../../../lib/stats/mean';
import { sampleSd } from '../../../lib/stats/sampleSd';
import { percentile } from '../../../lib/stats/percentile';
import { seededRandom } from '../../../lib/stats/seededRandom';

/** One condition's values of one metric: the `{n, mean, median, sd}` of summary.json.conditions. */
export interface GroupStats {
  n: number;
  mean: number | null;
  median: number | null;
  /** Sample SD (ddof = 1); null below two values. */
  sd: number | null;
  /** Seeded percentile-bootstrap 95% interval of the mean (resampling the group's sessions); null when not computed. */
  mean_ci95: [number, number] | null;
}

/** n, mean, median (numpy), SD and a bootstrap interval of the mean for one group of values. */
export function describeGroup(values: Float64Array, bootstrap: { replicates: number; seed: number }): GroupStats {
  const n = values.length;
  if (n === 0) return { n, mean: null, median: null, sd: null, mean_ci95: null };
  const ci = n > 1 && bootstrap.replicates > 0 ? bootstrapMeanCi(values, bootstrap) : null;
  return {
    n,
    mean: mean(values),
    median: percentile(values, 50),
    sd: n > 1 ? sampleSd(values) : null,
    mean_ci95: ci,
  };
}

/**
 * Percentile-bootstrap 95% interval of the mean: the same draws as bootstrapCi(n, idx => mean(values[idx]))
 * with seededRandom(seed), without building an index array per replicate.
 */
export function bootstrapMeanCi(values: Float64Array, options: { replicates: number; seed: number }): [number, number] {
  const random = seededRandom(options.seed);
  const n = values.length;
  const means = new Float64Array(options.replicates);
  for (let r = 0; r < options.replicates; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  return [percentile(means, 2.5), percentile(means, 97.5)];
}
