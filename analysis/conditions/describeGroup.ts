import { mean } from '../stats/mean';
import { sampleSd } from '../stats/sampleSd';
import { percentile } from '../stats/percentile';
import { bootstrapCi } from '../stats/bootstrapCi';

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
  const ci = n > 1 && bootstrap.replicates > 0 ? bootstrapCi(n, (idx) => mean(Array.from(idx, (i) => values[i]!)), bootstrap) : null;
  return {
    n,
    mean: mean(values),
    median: percentile(values, 50),
    sd: n > 1 ? sampleSd(values) : null,
    mean_ci95: ci ? [ci.low, ci.high] : null,
  };
}
