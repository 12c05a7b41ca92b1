import { mean } from './mean';

/**
 * Cohen's d for two independent groups with the pooled sample SD (ddof = 1):
 * d = (x̄₁ − x̄₂) / sqrt( ((n₁−1)s₁² + (n₂−1)s₂²) / (n₁+n₂−2) ).
 * Returns null when the pooled SD is 0 or undefined (fewer than 3 values in all).
 * Reference: Cohen (1988), Statistical Power Analysis, eq. 2.5.1; numpy twin in bench/analysis_ref.py.
 */
export function cohenD(group1: ArrayLike<number>, group2: ArrayLike<number>): number | null {
  const n1 = group1.length;
  const n2 = group2.length;
  if (n1 + n2 < 3 || n1 === 0 || n2 === 0) return null;
  const m1 = mean(group1);
  const m2 = mean(group2);
  let ss = 0;
  for (let i = 0; i < n1; i++) ss += (group1[i]! - m1) ** 2;
  for (let i = 0; i < n2; i++) ss += (group2[i]! - m2) ** 2;
  const pooled = Math.sqrt(ss / (n1 + n2 - 2));
  if (pooled === 0) return null;
  return (m1 - m2) / pooled;
}
