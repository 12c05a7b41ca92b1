import { defined, undefinedBecause, type Estimate } from './estimate';

/**
 * Fleiss' κ for N items each rated by the same number m ≥ 2 of raters into categories:
 * P_i = (Σ_j n_ij² − m)/(m(m−1)), P̄ = mean P_i, p_j = Σ_i n_ij/(N m), P_e = Σ p_j², κ = (P̄ − P_e)/(1 − P_e).
 * `ratings[i]` are item i's m ratings. Undefined with no items, unequal rater counts, or P_e = 1.
 * References: Fleiss (1971) Psychol. Bull. 76:378–382; statsmodels.stats.inter_rater.fleiss_kappa(table, method='fleiss').
 */
export function fleissKappa(ratings: ReadonlyArray<readonly number[]>): Estimate {
  const N = ratings.length;
  if (N === 0) return undefinedBecause('no item rated by every rater');
  const m = ratings[0]!.length;
  if (m < 2 || ratings.some((r) => r.length !== m)) return undefinedBecause('needs the same number (≥ 2) of ratings for every item');
  const categories = [...new Set(ratings.flat())].sort((a, b) => a - b);
  const col = new Map(categories.map((c, j) => [c, j]));
  const totals = new Float64Array(categories.length);
  let pBar = 0;
  for (const r of ratings) {
    const counts = new Float64Array(categories.length);
    for (const v of r) counts[col.get(v)!]! += 1;
    let sq = 0;
    counts.forEach((c, j) => ((sq += c * c), (totals[j]! += c)));
    pBar += (sq - m) / (m * (m - 1));
  }
  pBar /= N;
  let pe = 0;
  for (const t of totals) pe += (t / (N * m)) ** 2;
  if (pe >= 1) return undefinedBecause('chance agreement is 1: every rating is the same category');
  return defined((pBar - pe) / (1 - pe));
}
