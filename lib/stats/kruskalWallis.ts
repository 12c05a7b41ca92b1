import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import { averageRanks } from './averageRanks';

export interface KruskalWallisResult {
  /** H statistic with the tie correction. */
  h: number;
  df: number;
  p: number;
}

/**
 * Kruskal–Wallis H test of k ≥ 2 independent samples: rank all values together (average ranks),
 * H = [12/(N(N+1)) Σ Rᵢ²/nᵢ − 3(N+1)] / (1 − Σ(t³−t)/(N³−N)), p = P(χ²_{k−1} ≥ H).
 * Null when fewer than two non-empty samples or every value is equal.
 * Reference: scipy.stats.kruskal(*samples) (scipy 1.17).
 */
export function kruskalWallis(samples: ArrayLike<number>[]): KruskalWallisResult | null {
  const groups = samples.filter((s) => s.length > 0);
  if (groups.length < 2) return null;
  const all: number[] = [];
  for (const g of groups) for (let i = 0; i < g.length; i++) all.push(g[i]!);
  const N = all.length;
  const ranks = averageRanks(all);
  let at = 0;
  let sum = 0;
  for (const g of groups) {
    let r = 0;
    for (let i = 0; i < g.length; i++) r += ranks[at + i]!;
    at += g.length;
    sum += (r * r) / g.length;
  }
  const sorted = Float64Array.from(all).sort();
  let ties = 0;
  for (let i = 0; i < N; ) {
    let j = i;
    while (j < N && sorted[j] === sorted[i]) j++;
    const t = j - i;
    ties += t * t * t - t;
    i = j;
  }
  const correction = 1 - ties / (N * N * N - N);
  if (!(correction > 0)) return null;
  const h = ((12 / (N * (N + 1))) * sum - 3 * (N + 1)) / correction;
  const df = groups.length - 1;
  return { h, df, p: 1 - chisquareCdf(h, df) };
}
