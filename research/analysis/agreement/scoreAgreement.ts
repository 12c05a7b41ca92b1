import { cohenKappa } from './cohenKappa';
import type { Estimate } from './estimate';
import { iccInference, type IccInferences } from './iccInference';
import { intraclassCorrelation, type IntraclassCorrelations } from './intraclassCorrelation';
import { pairwiseComplete } from './pairwiseComplete';
import { rankCorrelation, type RankCorrelation } from './rankCorrelation';
import { LIKERT_CATEGORIES } from './scales';
import { bootstrapCi } from '../../../lib/stats/bootstrapCi';
import { bootstrapSpearmanCi } from '../../../lib/stats/bootstrapSpearmanCi';

/** Seeded percentile-bootstrap 95% interval over sessions (pairs resampled with replacement). */
export interface BootstrapInterval {
  lower: number;
  upper: number;
  /** Replicates where the statistic was defined. */
  replicates: number;
}

/** Bootstrap settings of the agreement intervals (fixed so agreement.json is reproducible). */
export const AGREEMENT_BOOTSTRAP = { replicates: 1000, seed: 1 } as const;

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
  /** Bootstrap 95% interval of Spearman's ρ over the n sessions (AGREEMENT_BOOTSTRAP). */
  spearman_ci95: BootstrapInterval | null;
  /** Bootstrap 95% intervals of the three kappas over the kappa.n sessions. */
  kappa_ci95: { unweighted: BootstrapInterval | null; linear: BootstrapInterval | null; quadratic: BootstrapInterval | null };
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
    spearman_ci95: interval(bootstrapSpearmanCi(paired.a, paired.b, AGREEMENT_BOOTSTRAP)),
    kappa_ci95: {
      unweighted: kappaInterval(integerA, integerB, 'unweighted'),
      linear: kappaInterval(integerA, integerB, 'linear'),
      quadratic: kappaInterval(integerA, integerB, 'quadratic'),
    },
  };
}

function interval(ci: { low: number; high: number; replicates: number } | null): BootstrapInterval | null {
  return ci && { lower: ci.low, upper: ci.high, replicates: ci.replicates };
}

/** Percentile-bootstrap interval of Cohen's κ, resampling the sessions (replicates where κ is undefined are skipped). */
function kappaInterval(a: number[], b: number[], weights: 'unweighted' | 'linear' | 'quadratic'): BootstrapInterval | null {
  if (a.length < 2) return null;
  const ra: number[] = new Array(a.length);
  const rb: number[] = new Array(a.length);
  return interval(
    bootstrapCi(
      a.length,
      (idx) => {
        for (let i = 0; i < idx.length; i++) (ra[i] = a[idx[i]!]!), (rb[i] = b[idx[i]!]!);
        return cohenKappa(ra, rb, LIKERT_CATEGORIES, weights).value;
      },
      AGREEMENT_BOOTSTRAP,
    ),
  );
}
