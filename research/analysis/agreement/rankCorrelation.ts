import { spearman } from '../../../lib/stats/spearman';

export type RankCorrelation = { value: number; p: number; reason?: undefined } | { value: null; p: null; reason: string };

/**
 * Spearman's ρ between two raters (average ranks for ties) with its two-sided t-approximation p,
 * as an estimate that explains itself when undefined. The statistic itself is
 * lib/stats/spearman (reference: scipy.stats.spearmanr); this only adds the reason.
 */
export function rankCorrelation(a: readonly number[], b: readonly number[]): RankCorrelation {
  const result = spearman(a, b);
  if (result) return { value: result.rho, p: result.p };
  if (a.length < 3) return { value: null, p: null, reason: `needs at least 3 items rated by both, got ${a.length}` };
  return { value: null, p: null, reason: 'one rater gave the same score to every item' };
}
