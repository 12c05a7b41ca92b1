/**
 * Exact null distribution of the Mann–Whitney U statistic for samples of sizes m and n without ties:
 * the number of orderings with U = u is the coefficient of q^u in the Gaussian binomial
 * [m+n choose m]_q = Π_{i=1..m} (1 − q^{n+i}) / (1 − q^i), built one factor at a time (after step i the
 * polynomial is [n+i choose i]_q, all coefficients positive). Returns P(U ≥ u) for the given u.
 * Reference: scipy.stats.mannwhitneyu(method='exact') (its _MWU.sf), Mann & Whitney (1947).
 */
export function mannWhitneyExactSf(u: number, m: number, n: number): number {
  if (m > n) [m, n] = [n, m];
  const max = m * n;
  if (u <= 0) return 1;
  if (u > max) return 0;
  const c = new Float64Array(max + 1);
  c[0] = 1;
  for (let i = 1; i <= m; i++) {
    const top = Math.min(max, i * n);
    // multiply by (1 − q^{n+i}) (downwards, so c[k − n − i] is still the old value)
    for (let k = top; k >= n + i; k--) c[k]! -= c[k - n - i]!;
    // divide by (1 − q^i): c[k] += c[k − i] (upwards)
    for (let k = i; k <= top; k++) c[k]! += c[k - i]!;
  }
  let total = 0;
  let upper = 0;
  for (let k = 0; k <= max; k++) {
    total += c[k]!;
    if (k >= u) upper += c[k]!;
  }
  return upper / total;
}
