import { percentile } from './percentile';
import type { ConfidenceInterval } from './bootstrapCi';

/**
 * Percentile bootstrap 95% interval of Spearman's ρ(x, y), resampling pairs with replacement.
 * Same draws and result as bootstrapCi(n, idx => spearman(x[idx], y[idx]).rho, options), but O(n) per
 * replicate: values are grouped into tie groups once; a resample only counts how many copies fall in each
 * group, which fixes every group's average rank (below + (copies + 1)/2), and ρ is the Pearson
 * correlation of those ranks over the drawn pairs. Replicates where either resample is constant are
 * skipped. Null when n < 3 or no replicate is defined.
 * Reference: Efron & Tibshirani (1993), ch. 13; scipy.stats.spearmanr for each replicate.
 */
export function bootstrapSpearmanCi(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: { replicates: number; seed: number },
): ConfidenceInterval | null {
  const n = x.length;
  if (n < 3) return null;
  const gx = tieGroupOf(x);
  const gy = tieGroupOf(y);
  const copiesX = new Float64Array(gx.groups);
  const copiesY = new Float64Array(gy.groups);
  const draws = new Uint32Array(n);
  const centre = (n + 1) / 2;
  const values: number[] = [];
  let state = options.seed >>> 0; // mulberry32, inlined: same sequence as seededRandom(seed)
  for (let b = 0; b < options.replicates; b++) {
    copiesX.fill(0);
    copiesY.fill(0);
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const u = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
      draws[i] = u;
      copiesX[gx.group[u]!]! += 1;
      copiesY[gy.group[u]!]! += 1;
    }
    // copies → centred average rank of each group, in place; false when one group holds every copy
    if (!centredRanks(copiesX, n, centre) || !centredRanks(copiesY, n, centre)) continue;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let i = 0; i < n; i++) {
      const u = draws[i]!;
      const dx = copiesX[gx.group[u]!]!;
      const dy = copiesY[gy.group[u]!]!;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    values.push(Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))));
  }
  if (values.length === 0) return null;
  return { low: percentile(values, 2.5), high: percentile(values, 97.5), replicates: values.length };
}

/** Tie group of each value, groups numbered in increasing value order. */
function tieGroupOf(values: ArrayLike<number>): { group: Uint32Array; groups: number } {
  const n = values.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  const group = new Uint32Array(n);
  let g = 0;
  for (let k = 0; k < n; k++) {
    if (k > 0 && values[order[k]!] !== values[order[k - 1]!]) g++;
    group[order[k]!] = g;
  }
  return { group, groups: n === 0 ? 0 : g + 1 };
}

function centredRanks(copies: Float64Array, total: number, centre: number): boolean {
  let below = 0;
  for (let g = 0; g < copies.length; g++) {
    const c = copies[g]!;
    if (c === total) return false;
    copies[g] = below + (c + 1) / 2 - centre;
    below += c;
  }
  return true;
}
