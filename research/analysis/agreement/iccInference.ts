import { fQuantile, fUpperTail } from './fDistribution';
import { ICC_FORMS, intraclassCorrelation, type IntraclassCorrelations } from './intraclassCorrelation';
import { twoWayMeanSquares } from './twoWayMeanSquares';

/** Confidence interval and F-test p (H0: ICC = 0) of one ICC form; null where undefined. */
export interface IccInference {
  lower: number;
  upper: number;
  p: number;
}

export type IccInferences = Record<keyof IntraclassCorrelations, IccInference | null>;

/**
 * Confidence intervals (default 95%) and F tests for the six McGraw & Wong ICC forms of a complete
 * matrix `matrix[target][rater]`:
 *   one-way:     F = MSR/MSW, df (n−1, n(k−1));  two-way: F = MSR/MSE, df (n−1, (n−1)(k−1))
 *   FL = F / F_{1−α/2}(df1, df2), FU = F · F_{1−α/2}(df2, df1)
 *   single: [(FL−1)/(FL+k−1), (FU−1)/(FU+k−1)], average: [1 − 1/FL, 1 − 1/FU]
 *   ICC(A,1): bounds with Satterthwaite df v for a·MSC + b·MSE (McGraw & Wong Table 7),
 *   ICC(A,k): the ICC(A,1) bounds stepped up by Spearman–Brown, kL/(1 + (k−1)L).
 * ICC(A,·) share the consistency F test, as in R psych::ICC. Null where the ICC itself is undefined,
 * with fewer than 3 targets (one numerator df gives bounds like −600), and for ICC(A,k) when the
 * ICC(A,1) lower bound is ≤ −1/(k−1), where the Spearman–Brown step-up stops being monotone.
 * References: McGraw & Wong (1996) Psychol. Methods 1(1):30–46, Tables 7–8; R psych::ICC and
 * pingouin.intraclass_corr implement the same formulas (psych's documented Shrout & Fleiss output is
 * reproduced in the test).
 */
export function iccInference(matrix: readonly (readonly number[])[], level = 0.95): IccInferences {
  const none: IccInferences = { icc1: null, icc1k: null, a1: null, ak: null, c1: null, ck: null };
  const icc = intraclassCorrelation(matrix);
  if (matrix.length < 3 || ICC_FORMS.every((form) => icc[form].value === null)) return none;
  const { n, k, rows: msr, columns: msc, error: mse, within: msw } = twoWayMeanSquares(matrix);
  const q = 1 - (1 - level) / 2;
  const out = { ...none };

  const single = (fl: number, fu: number) => [(fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)] as const;
  const average = (fl: number, fu: number) => [1 - 1 / fl, 1 - 1 / fu] as const;
  const put = (form: keyof IntraclassCorrelations, bounds: readonly [number, number], p: number) => {
    if (icc[form].value !== null && bounds.every(Number.isFinite)) out[form] = { lower: bounds[0], upper: bounds[1], p };
  };

  if (msw > 0) {
    const f = msr / msw;
    const [d1, d2] = [n - 1, n * (k - 1)];
    const fl = f / fQuantile(q, d1, d2);
    const fu = f * fQuantile(q, d2, d1);
    const p = fUpperTail(f, d1, d2);
    put('icc1', single(fl, fu), p);
    put('icc1k', average(fl, fu), p);
  }
  if (mse > 0) {
    const f = msr / mse;
    const [d1, d2] = [n - 1, (n - 1) * (k - 1)];
    const fl = f / fQuantile(q, d1, d2);
    const fu = f * fQuantile(q, d2, d1);
    const p = fUpperTail(f, d1, d2);
    put('c1', single(fl, fu), p);
    put('ck', average(fl, fu), p);

    const a1 = icc.a1.value;
    if (a1 !== null && a1 < 1) {
      const a = (k * a1) / (n * (1 - a1));
      const b = 1 + (k * a1 * (n - 1)) / (n * (1 - a1));
      const v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)));
      const fUpper = fQuantile(q, n - 1, v);
      const fLower = fQuantile(q, v, n - 1);
      const spread = k * msc + (k * n - k - n) * mse;
      const lower = (n * (msr - fUpper * mse)) / (fUpper * spread + n * msr);
      const upper = (n * (fLower * msr - mse)) / (spread + n * fLower * msr);
      put('a1', [lower, upper], p);
      if (1 + lower * (k - 1) > 0) put('ak', [(k * lower) / (1 + lower * (k - 1)), (k * upper) / (1 + upper * (k - 1))], p);
    }
  }
  return out;
}
