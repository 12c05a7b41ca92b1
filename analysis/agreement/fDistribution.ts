import { createRequire } from 'node:module';

// jstat ships no type declarations; load it through require and type the two functions used here.
const jStat = createRequire(import.meta.url)('jstat') as {
  ibeta(x: number, a: number, b: number): number;
  centralF: { inv(p: number, df1: number, df2: number): number };
};

/**
 * Quantile of the F distribution with (df1, df2) degrees of freedom (df may be non-integer, as in
 * the Satterthwaite df of ICC(A,1)). jstat's inverse regularized beta: ~1e-9 relative to
 * scipy.stats.f.ppf.
 */
export function fQuantile(p: number, df1: number, df2: number): number {
  return jStat.centralF.inv(p, df1, df2);
}

/**
 * Upper tail P(F > x) = I_{df2/(df2 + df1·x)}(df2/2, df1/2), computed directly (not 1 − cdf) so tiny
 * p-values keep their precision. Reference: scipy.stats.f.sf(x, df1, df2) (~1e-9 relative).
 */
export function fUpperTail(x: number, df1: number, df2: number): number {
  if (x <= 0) return 1;
  if (!Number.isFinite(x)) return 0;
  return jStat.ibeta(df2 / (df2 + df1 * x), df2 / 2, df1 / 2);
}
