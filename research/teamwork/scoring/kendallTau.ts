/**
 * Kendall's τ-b between two paired score lists (ties in either list corrected):
 *   τ_b = (C − D) / √((n₀ − n₁)(n₀ − n₂)), n₀ = n(n−1)/2, n₁ / n₂ = pairs tied in x / in y.
 * Null when n < 2 or either list is constant. O(n²), fine for leaderboards.
 * Reference: Kendall (1945) Biometrika 33:239–251; equals scipy.stats.kendalltau(x, y) (variant 'b').
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`kendallTauB: length mismatch ${x.length} vs ${y.length}`);
  const n = x.length;
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0) tiesX++;
      if (dy === 0) tiesY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiesX) * (n0 - tiesY));
  return n < 2 || denominator === 0 ? null : (concordant - discordant) / denominator;
}
