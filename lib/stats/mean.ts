import { compensatedSum } from './compensatedSum';

/**
 * Arithmetic mean: (1/n) · Σ xᵢ, the sum compensated (Neumaier), so the mean of values that average to
 * a representable number is that number exactly. Empty input → NaN.
 * Reference: numpy.mean / math.fsum(x) / n.
 */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  return compensatedSum(values) / n;
}
