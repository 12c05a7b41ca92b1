import tCdf from '@stdlib/stats-base-dists-t-cdf';

/**
 * Two-sided p-value of a Student t statistic with `df` degrees of freedom:
 * p = 2 · P(T ≤ −|t|) (computed from the lower tail to avoid cancellation).
 * |t| = ∞ → 0; NaN → NaN.
 * Reference: 2 * scipy.stats.t.sf(abs(t), df).
 */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, 2 * tCdf(-Math.abs(t), df));
}
