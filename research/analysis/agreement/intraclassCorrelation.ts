import { defined, undefinedBecause, type Estimate } from './estimate';
import { twoWayMeanSquares } from './twoWayMeanSquares';

/** The six McGraw & Wong forms; Shrout & Fleiss names in brackets. */
export interface IntraclassCorrelations {
  /** ICC(1): one-way random, single rater [ICC(1,1)] */
  icc1: Estimate;
  /** ICC(k): one-way random, mean of k raters [ICC(1,k)] */
  icc1k: Estimate;
  /** ICC(A,1): two-way, absolute agreement, single rater [ICC(2,1)] */
  a1: Estimate;
  /** ICC(A,k): two-way, absolute agreement, mean of k raters [ICC(2,k)] */
  ak: Estimate;
  /** ICC(C,1): two-way, consistency, single rater [ICC(3,1)] */
  c1: Estimate;
  /** ICC(C,k): two-way, consistency, mean of k raters [ICC(3,k)] */
  ck: Estimate;
}

export const ICC_FORMS = ['icc1', 'icc1k', 'a1', 'ak', 'c1', 'ck'] as const;

/**
 * Intraclass correlations of a complete matrix `matrix[target][rater]` (n targets, k raters), from
 * the ANOVA mean squares MSR (targets), MSC (raters), MSE (residual), MSW (within targets):
 *
 *   ICC(1)   = (MSR − MSW) / (MSR + (k−1)·MSW)        ICC(k)   = (MSR − MSW) / MSR
 *   ICC(A,1) = (MSR − MSE) / (MSR + (k−1)·MSE + k/n·(MSC − MSE))
 *   ICC(A,k) = (MSR − MSE) / (MSR + (MSC − MSE)/n)
 *   ICC(C,1) = (MSR − MSE) / (MSR + (k−1)·MSE)        ICC(C,k) = (MSR − MSE) / MSR
 *
 * Pass only complete rows (pairwise- or listwise-complete). Fewer than 2 targets or raters, or a
 * zero denominator (e.g. every rating identical), gives null with a reason.
 * References: McGraw & Wong (1996) Psychol. Methods 1(1):30–46, Table 4; Shrout & Fleiss (1979)
 * Psychol. Bull. 86(2):420–428 (Table 2 data reproduced in the test).
 */
export function intraclassCorrelation(matrix: readonly (readonly number[])[]): IntraclassCorrelations {
  const n = matrix.length;
  const k = matrix[0]?.length ?? 0;
  if (n < 2 || k < 2) {
    const reason = n < 2 ? `needs at least 2 targets rated by every rater, got ${n}` : `needs at least 2 raters, got ${k}`;
    const u = undefinedBecause(reason);
    return { icc1: u, icc1k: u, a1: u, ak: u, c1: u, ck: u };
  }
  const ms = twoWayMeanSquares(matrix);
  const { rows: msr, columns: msc, error: mse, within: msw } = ms;
  // A denominator that is 0 in exact arithmetic comes out as ±1e-16 in floating point and would turn
  // into an ICC of ±1e15; anything this small relative to the mean squares counts as 0.
  const zero = 1e-12 * (msr + msc + mse + msw);
  const ratio = (numerator: number, denominator: number): Estimate =>
    Math.abs(denominator) <= zero
      ? undefinedBecause('no variance in the ratings (denominator is 0)')
      : defined(numerator / denominator);
  return {
    icc1: ratio(msr - msw, msr + (k - 1) * msw),
    icc1k: ratio(msr - msw, msr),
    a1: ratio(msr - mse, msr + (k - 1) * mse + (k / n) * (msc - mse)),
    ak: ratio(msr - mse, msr + (msc - mse) / n),
    c1: ratio(msr - mse, msr + (k - 1) * mse),
    ck: ratio(msr - mse, msr),
  };
}
