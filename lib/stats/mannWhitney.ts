import { mannWhitneyU } from './mannWhitneyU';
import { mannWhitneyExactSf } from './mannWhitneyExact';

export type MannWhitneyMethod = 'exact' | 'asymptotic';

export interface MannWhitneyTestResult {
  /** U₁ of the first sample, as scipy reports it. */
  u: number;
  /** Two-sided p. */
  p: number;
  /** How p was computed: exact null distribution or normal approximation (tie + continuity corrected). */
  method: MannWhitneyMethod;
}

/**
 * Two-sided Mann–Whitney U test choosing the method as scipy's method='auto' does: exact when there are
 * no ties and at least one sample has ≤ 8 values, else the normal approximation with tie and continuity
 * correction. Exact p = min(1, 2·P(U ≥ max(U₁, U₂))). Null when either sample is empty.
 * Reference: scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='auto') (scipy 1.17).
 */
export function mannWhitneyTest(x: ArrayLike<number>, y: ArrayLike<number>, method: 'auto' | MannWhitneyMethod = 'auto'): MannWhitneyTestResult | null {
  const asymptotic = mannWhitneyU(x, y);
  if (asymptotic === null) return null;
  const n1 = x.length;
  const n2 = y.length;
  const chosen = method === 'auto' ? (n1 > 8 && n2 > 8) || hasTies(x, y) ? 'asymptotic' : 'exact' : method;
  if (chosen === 'asymptotic') return { ...asymptotic, method: 'asymptotic' };
  const u = Math.max(asymptotic.u, n1 * n2 - asymptotic.u);
  return { u: asymptotic.u, p: Math.min(1, 2 * mannWhitneyExactSf(u, n1, n2)), method: 'exact' };
}

function hasTies(x: ArrayLike<number>, y: ArrayLike<number>): boolean {
  const all = Float64Array.from([...Array.from(x), ...Array.from(y)]).sort();
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) return true;
  return false;
}
