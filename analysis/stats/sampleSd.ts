import { mean } from './mean';

/**
 * Sample standard deviation with Bessel's correction (ddof = 1):
 * sqrt( Σ (xᵢ − x̄)² / (n − 1) ). Fewer than two values → NaN.
 * Reference: numpy.std(x, ddof=1).
 */
export function sampleSd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - m;
    ss += d * d;
  }
  return Math.sqrt(ss / (n - 1));
}
