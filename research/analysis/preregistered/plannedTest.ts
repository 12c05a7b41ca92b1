/**
 * The plan's test of condition a against condition b, with its direction ("greater": a > b):
 *  - mann_whitney: scipy.stats.mannwhitneyu(a, b, alternative=…, method='auto') — exact when there are no ties
 *    and one sample has ≤ 8 values, else the normal approximation with tie and continuity correction;
 *  - welch_t: scipy.stats.ttest_ind(a, b, equal_var=False, alternative=…).
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import type { PlanDirection, PlannedTest } from '../../../common/preregistration';
import { mean } from '../../../lib/stats/mean';
import { sampleSd } from '../../../lib/stats/sampleSd';
import { normalCdf } from '../../../lib/stats/normalCdf';
import { averageRanks } from '../../../lib/stats/averageRanks';
import { mannWhitneyTest } from '../../../lib/stats/mannWhitney';
import { mannWhitneyExactSf } from '../../../lib/stats/mannWhitneyExact';

export interface PlannedTestResult {
  test: PlannedTest;
  alternative: PlanDirection;
  /** U₁ of a (Mann–Whitney) or Welch's t. */
  statistic: number;
  /** Welch–Satterthwaite degrees of freedom (welch_t only). */
  df: number | null;
  p: number;
  method: 'exact' | 'asymptotic' | 'welch';
}

export function plannedTest(test: PlannedTest, alternative: PlanDirection, a: Float64Array, b: Float64Array): PlannedTestResult | null {
  if (a.length === 0 || b.length === 0) return null;
  return test === 'welch_t' ? welch(alternative, a, b) : mannWhitney(alternative, a, b);
}

function welch(alternative: PlanDirection, a: Float64Array, b: Float64Array): PlannedTestResult | null {
  if (a.length < 2 || b.length < 2) return null;
  const va = sampleSd(a) ** 2 / a.length;
  const vb = sampleSd(b) ** 2 / b.length;
  if (!(va + vb > 0)) return null;
  const t = (mean(a) - mean(b)) / Math.sqrt(va + vb);
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const lower = tCdf(t, df);
  const p = alternative === 'greater' ? 1 - lower : alternative === 'less' ? lower : Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { test: 'welch_t', alternative, statistic: t, df, p, method: 'welch' };
}

function mannWhitney(alternative: PlanDirection, a: Float64Array, b: Float64Array): PlannedTestResult | null {
  const two = mannWhitneyTest(a, b);
  if (!two) return null;
  const u1 = two.u;
  if (alternative === 'two-sided') return { test: 'mann_whitney', alternative, statistic: u1, df: null, p: two.p, method: two.method };
  const n1 = a.length;
  const n2 = b.length;
  // "greater" looks at U₁, "less" at U₂ = n₁n₂ − U₁, as scipy does.
  const u = alternative === 'greater' ? u1 : n1 * n2 - u1;
  if (two.method === 'exact') return { test: 'mann_whitney', alternative, statistic: u1, df: null, p: Math.min(1, mannWhitneyExactSf(u, n1, n2)), method: 'exact' };
  const ranks = averageRanks(Float64Array.from([...a, ...b]));
  const n = n1 + n2;
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let tie = 0;
  for (const t of counts.values()) tie += t ** 3 - t;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tie / (n * (n - 1))));
  const z = sigma === 0 ? -Infinity : (u - (n1 * n2) / 2 - 0.5) / sigma;
  return { test: 'mann_whitney', alternative, statistic: u1, df: null, p: Math.min(1, Math.max(0, 1 - normalCdf(z))), method: 'asymptotic' };
}
