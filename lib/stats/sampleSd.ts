import { mean } from './mean';
import { compensatedSumOfSquares } from './compensatedSum';

/**
 * Sample standard deviation with Bessel's correction (ddof = 1):
 * sqrt( Σ (xᵢ − x̄)² / (n − 1) ), mean and sum of squares compensated (Neumaier). Fewer than two
 * values → NaN.
 * Reference: numpy.std(x, ddof=1).
 */
export function sampleSd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  return Math.sqrt(compensatedSumOfSquares(values, mean(values)) / (n - 1));
}
