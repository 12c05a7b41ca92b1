import { percentile } from './percentile';
import { mulberry32StateAfter } from './seededRandom';
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
  if (x.length < 3) return null;
  const plan = spearmanPlan([[x, y]], options.replicates);
  const rho = new Float64Array(options.replicates);
  spearmanReplicates(plan, options.seed, 0, options.replicates, rho);
  return spearmanInterval(rho);
}

/**
 * Several samples' bootstrapSpearmanCi inputs, one after another, as flat arrays (a worker thread can share
 * them): sample s owns pairs start[s] … start[s+1] − 1, whose tie groups (numbered in value order within
 * the sample) are groupX / groupY and whose group counts are groupsX[s] / groupsY[s]. Every sample has n ≥ 3.
 */
export type SpearmanPlan = {
  start: Int32Array;
  groupX: Uint32Array;
  groupY: Uint32Array;
  groupsX: Int32Array;
  groupsY: Int32Array;
  replicates: number;
};

export function spearmanPlan(samples: ReadonlyArray<readonly [ArrayLike<number>, ArrayLike<number>]>, replicates: number): SpearmanPlan {
  const S = samples.length;
  const start = new Int32Array(S + 1);
  samples.forEach(([x], s) => (start[s + 1] = start[s]! + x.length));
  const plan: SpearmanPlan = {
    start,
    groupX: new Uint32Array(start[S]!),
    groupY: new Uint32Array(start[S]!),
    groupsX: new Int32Array(S),
    groupsY: new Int32Array(S),
    replicates,
  };
  samples.forEach(([x, y], s) => {
    if (x.length < 3 || y.length !== x.length) throw new Error(`spearmanPlan: sample ${s} needs ≥ 3 pairs (x ${x.length}, y ${y.length})`);
    const gx = tieGroupOf(x);
    const gy = tieGroupOf(y);
    plan.groupX.set(gx.group, start[s]!);
    plan.groupY.set(gy.group, start[s]!);
    plan.groupsX[s] = gx.groups;
    plan.groupsY[s] = gy.groups;
  });
  return plan;
}

/**
 * Units from … to − 1: unit s·replicates + r is replicate r of sample s, which draws from mulberry32(seed)
 * after r·n draws (each sample's stream starts at the seed, as one bootstrapSpearmanCi call per sample
 * would). out[unit] = the replicate's ρ, NaN when either resample is constant.
 */
export function spearmanReplicates(plan: SpearmanPlan, seed: number, from: number, to: number, out: Float64Array): void {
  const { start, groupX, groupY, groupsX, groupsY, replicates } = plan;
  let largest = 0;
  let mostX = 0;
  let mostY = 0;
  for (let s = 0; s < groupsX.length; s++) {
    largest = Math.max(largest, start[s + 1]! - start[s]!);
    mostX = Math.max(mostX, groupsX[s]!);
    mostY = Math.max(mostY, groupsY[s]!);
  }
  const allCopiesX = new Float64Array(mostX);
  const allCopiesY = new Float64Array(mostY);
  const draws = new Uint32Array(largest);
  for (let unit = from; unit < to; unit++) {
    const s = Math.floor(unit / replicates);
    const r = unit - s * replicates;
    const offset = start[s]!;
    const n = start[s + 1]! - offset;
    const gx = groupX.subarray(offset, offset + n);
    const gy = groupY.subarray(offset, offset + n);
    const copiesX = allCopiesX.subarray(0, groupsX[s]!);
    const copiesY = allCopiesY.subarray(0, groupsY[s]!);
    const centre = (n + 1) / 2;
    copiesX.fill(0);
    copiesY.fill(0);
    let state = mulberry32StateAfter(seed, r * n); // mulberry32, inlined: same sequence as seededRandom(seed)
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const u = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
      draws[i] = u;
      copiesX[gx[u]!]! += 1;
      copiesY[gy[u]!]! += 1;
    }
    // copies → centred average rank of each group, in place; false when one group holds every copy
    if (!centredRanks(copiesX, n, centre) || !centredRanks(copiesY, n, centre)) {
      out[unit] = NaN;
      continue;
    }
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let i = 0; i < n; i++) {
      const u = draws[i]!;
      const dx = copiesX[gx[u]!]!;
      const dy = copiesY[gy[u]!]!;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    out[unit] = Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  }
}

/** The 2.5th and 97.5th percentiles of the defined (not NaN) replicates; null when none is. */
export function spearmanInterval(rho: ArrayLike<number>): ConfidenceInterval | null {
  const values: number[] = [];
  for (let r = 0; r < rho.length; r++) if (!Number.isNaN(rho[r]!)) values.push(rho[r]!);
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
