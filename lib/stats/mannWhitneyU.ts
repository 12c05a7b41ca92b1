import { normalCdf } from './normalCdf';

export interface MannWhitneyResult {
  /** U statistic of the first sample (U₁ = R₁ − n₁(n₁+1)/2), as scipy reports it. */
  u: number;
  /** Two-sided asymptotic p with tie correction and continuity correction. */
  p: number;
}

/**
 * Mann–Whitney U test, two-sided, normal approximation with tie correction and continuity correction:
 * U = max(U₁, n₁n₂ − U₁), σ = sqrt( n₁n₂/12 · ((n+1) − Σ(tᵢ³ − tᵢ)/(n(n−1))) ),
 * z = (U − n₁n₂/2 − 0.5)/σ, p = clip(2·(1 − Φ(z)), 0, 1). All values equal → σ = 0, z = −∞, p = 1.
 * R₁ and the tie counts come from merging the two sorted samples. Null when either sample is empty.
 * Reference: scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='asymptotic') (scipy 1.17).
 */
export function mannWhitneyU(x: ArrayLike<number>, y: ArrayLike<number>): MannWhitneyResult | null {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) return null;
  const n = n1 + n2;
  const a = Float64Array.from(x).sort();
  const b = Float64Array.from(y).sort();
  let r1 = 0;
  let ties = 0;
  let below = 0;
  let i = 0;
  let j = 0;
  while (i < n1 || j < n2) {
    const v = j >= n2 || (i < n1 && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    let inA = 0;
    while (i < n1 && a[i] === v) (i++, inA++);
    let inB = 0;
    while (j < n2 && b[j] === v) (j++, inB++);
    const t = inA + inB;
    r1 += inA * (below + (t + 1) / 2); // the tie block shares ranks below+1 … below+t
    ties += t * t * t - t;
    below += t;
  }
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u = Math.max(u1, n1 * n2 - u1);
  const s = Math.sqrt(((n1 * n2) / 12) * (n + 1 - ties / (n * (n - 1))));
  const numerator = u - (n1 * n2) / 2 - 0.5;
  const z = s === 0 ? (numerator < 0 ? -Infinity : numerator > 0 ? Infinity : NaN) : numerator / s;
  const p = Number.isNaN(z) ? 1 : Math.min(1, Math.max(0, 2 * normalCdf(-z)));
  return { u: u1, p };
}
