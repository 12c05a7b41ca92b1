import betainc from '@stdlib/math-base-special-betainc';
import fQuantileStdlib from '@stdlib/stats-base-dists-f-quantile';

/**
 * Quantile of the F distribution with (df1, df2) degrees of freedom (df may be non-integer, as in
 * the Satterthwaite df of ICC(A,1)). @stdlib's inverse regularized beta (Boost's algorithm):
 * within 1e-12 relative of scipy.stats.f.ppf (and R qf) on the agreement fixtures.
 */
export function fQuantile(p: number, df1: number, df2: number): number {
  return fQuantileStdlib(p, df1, df2);
}

/**
 * Upper tail P(F > x) = I_{df2/(df2 + df1·x)}(df2/2, df1/2), computed directly (not 1 − cdf) so tiny
 * p-values keep their precision. Reference: scipy.stats.f.sf(x, df1, df2) (1e-12 relative).
 */
export function fUpperTail(x: number, df1: number, df2: number): number {
  if (x <= 0) return 1;
  if (!Number.isFinite(x)) return 0;
  return betainc(df2 / (df2 + df1 * x), df2 / 2, df1 / 2);
}
