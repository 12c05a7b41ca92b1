import { sampleSd } from './sampleSd';

/**
 * Standard error of the mean: s/√n with the sample SD (ddof = 1). Fewer than two values → NaN.
 * Reference: scipy.stats.sem(x) (ddof=1 default).
 */
export function standardError(values: ArrayLike<number>): number {
  return sampleSd(values) / Math.sqrt(values.length);
}
