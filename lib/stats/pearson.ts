import { mean } from './mean';

/**
 * Pearson product-moment correlation:
 * r = Σ (xᵢ − x̄)(yᵢ − ȳ) / sqrt( Σ (xᵢ − x̄)² · Σ (yᵢ − ȳ)² ), clipped to [−1, 1].
 * Returns null when either input is constant or fewer than two pairs are given.
 * Reference: scipy.stats.pearsonr(x, y).statistic / numpy.corrcoef(x, y)[0, 1].
 */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length;
  if (n !== y.length) throw new Error(`pearson: length mismatch ${n} vs ${y.length}`);
  if (n < 2) return null;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  const r = sxy / Math.sqrt(sxx * syy);
  return Math.max(-1, Math.min(1, r));
}
