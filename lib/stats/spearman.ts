import { averageRanks } from './averageRanks';
import { pearson } from './pearson';
import { studentTTwoSidedP } from './studentTTwoSidedP';

export interface Correlation {
  rho: number;
  p: number;
}

/**
 * Spearman rank correlation: Pearson correlation of average ranks (ties → mean rank), with
 * the two-sided p from the t approximation t = ρ·sqrt((n−2)/((1+ρ)(1−ρ))), df = n − 2.
 * Returns null when either input is constant or fewer than three pairs are given.
 * Reference: scipy.stats.spearmanr(x, y) (statistic, pvalue), scipy ≥ 1.9.
 */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): Correlation | null {
  const n = x.length;
  if (n !== y.length) throw new Error(`spearman: length mismatch ${n} vs ${y.length}`);
  if (n < 3) return null;
  const rho = pearson(averageRanks(x), averageRanks(y));
  if (rho === null) return null;
  return { rho, p: correlationTTestP(rho, n - 2) };
}

/** Two-sided p of a correlation coefficient via t = r·sqrt(df/((1+r)(1−r))), as scipy does. */
export function correlationTTestP(r: number, df: number): number {
  const denom = (r + 1) * (1 - r);
  const t = denom <= 0 ? (r > 0 ? Infinity : -Infinity) : r * Math.sqrt(df / denom);
  return studentTTwoSidedP(t, df);
}
