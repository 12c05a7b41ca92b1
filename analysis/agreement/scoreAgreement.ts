import { cohenKappa } from './cohenKappa';
import type { Estimate } from './estimate';
import { iccInference, type IccInferences } from './iccInference';
import { intraclassCorrelation, type IntraclassCorrelations } from './intraclassCorrelation';
import { pairwiseComplete } from './pairwiseComplete';
import { rankCorrelation, type RankCorrelation } from './rankCorrelation';
import { LIKERT_CATEGORIES } from './scales';

export interface ScoreAgreement {
  /** items (sessions) both raters scored */
  n: number;
  spearman: RankCorrelation;
  /** Cohen's kappa on the fixed 1..5 scale over the n_kappa items where both scores are integers */
  kappa: { n: number; unweighted: Estimate; linear: Estimate; quadratic: Estimate };
  /** McGraw & Wong forms on the n × 2 matrix (k = 2) */
  icc: IntraclassCorrelations;
  /** 95% confidence interval and F-test p of each ICC form (null where undefined) */
  icc_ci95: IccInferences;
}

/**
 * Agreement between two raters' 1–5 quality scores on the sessions both rated (pairwise complete):
 * Spearman, Cohen's kappa (unweighted, linear, quadratic on the fixed 1..5 scale) and the six ICC
 * forms. A non-integer score (a judge median of two samples, e.g. 3.5) is not a category: it is left
 * out of kappa only (kappa.n says how many items remain) and kept for Spearman and ICC.
 */
export function scoreAgreement(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): ScoreAgreement {
  const paired = pairwiseComplete(a, b);
  const integerA: number[] = [];
  const integerB: number[] = [];
  paired.a.forEach((x, i) => {
    const y = paired.b[i]!;
    if (Number.isInteger(x) && Number.isInteger(y)) {
      integerA.push(x);
      integerB.push(y);
    }
  });
  const matrix = paired.a.map((x, i) => [x, paired.b[i]!]);
  return {
    n: paired.keys.length,
    spearman: rankCorrelation(paired.a, paired.b),
    kappa: {
      n: integerA.length,
      unweighted: cohenKappa(integerA, integerB, LIKERT_CATEGORIES, 'unweighted'),
      linear: cohenKappa(integerA, integerB, LIKERT_CATEGORIES, 'linear'),
      quadratic: cohenKappa(integerA, integerB, LIKERT_CATEGORIES, 'quadratic'),
    },
    icc: intraclassCorrelation(matrix),
    icc_ci95: iccInference(matrix),
  };
}
