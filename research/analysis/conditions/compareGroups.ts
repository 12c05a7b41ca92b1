import { mean } from '../../../lib/stats/mean';
import { cohenD } from '../../../lib/stats/cohenD';
import { cliffsDelta } from '../../../lib/stats/cliffsDelta';
import { mannWhitneyTest, type MannWhitneyMethod } from '../../../lib/stats/mannWhitney';
import { kruskalWallis } from '../../../lib/stats/kruskalWallis';

/** One pairwise comparison: condition a against condition b (diff = mean_a − mean_b). */
export interface ConditionComparison {
  a: string;
  b: string;
  n_a: number;
  n_b: number;
  diff: number;
  /** Seeded percentile-bootstrap 95% interval of diff (sessions resampled within each condition; pooled: within task and condition). */
  ci95: [number, number] | null;
  /** Mann–Whitney U₁ of a (pooled: over all pooled sessions, descriptive). */
  u: number | null;
  /** Two-sided p: Mann–Whitney within a task; the stratified permutation p when pooled. */
  p: number | null;
  /** 'exact' | 'asymptotic' (Mann–Whitney, scipy's auto rule) or 'stratified_permutation' (pooled). */
  method: MannWhitneyMethod | 'stratified_permutation' | null;
  /** Holm-adjusted p across the family (see summary.conditions.families). */
  p_holm: number | null;
  cliffs_delta: number | null;
  cohen_d: number | null;
  /** Pooled only: the stratified permutation p (same as p). */
  p_permutation?: number | null;
}

/** Kruskal–Wallis across all conditions of a task (three or more conditions). */
export interface OmnibusTest {
  test: 'kruskal_wallis' | 'stratified_permutation_kruskal_wallis';
  h: number;
  df: number;
  p: number | null;
  p_holm: number | null;
}

/** Pairwise comparison of two groups' values within one task (the interval comes from conditionSection's resamples). */
export function compareTwo(a: string, b: string, x: Float64Array, y: Float64Array, ci95: [number, number] | null): ConditionComparison {
  const mw = mannWhitneyTest(x, y);
  return {
    a,
    b,
    n_a: x.length,
    n_b: y.length,
    diff: mean(x) - mean(y),
    ci95,
    u: mw?.u ?? null,
    p: mw?.p ?? null,
    method: mw?.method ?? null,
    p_holm: null,
    cliffs_delta: cliffsDelta(x, y),
    cohen_d: cohenD(x, y),
  };
}

/** Kruskal–Wallis over the groups (null when undefined, e.g. every value equal). */
export function omnibus(groups: Float64Array[]): OmnibusTest | null {
  const kw = kruskalWallis(groups);
  return kw && { test: 'kruskal_wallis', h: kw.h, df: kw.df, p: kw.p, p_holm: null };
}
