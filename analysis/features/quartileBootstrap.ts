import { percentile } from '../stats/percentile';
import { seededRandom } from '../stats/seededRandom';
import { mean } from '../stats/mean';
import { compensatedSumOfSquares } from '../stats/compensatedSum';
import type { ConfidenceInterval } from '../stats/bootstrapCi';

/**
 * Percentile-bootstrap 95% intervals of top-minus-bottom quartile differences that carry the uncertainty
 * of the quartiles themselves: each replicate resamples every task's scored sessions with replacement
 * (task sizes kept), recomputes z(Q), z(C) and Pz within each resampled task, takes the top and bottom
 * ceil(N/4) draws by Pz (ties broken by session index, then draw position: deterministic), and
 * evaluates mean(feature | top) − mean(feature | bottom) over the draws where the feature is present.
 * Unlike bootstrap.quartile_difference (quartile membership held fixed, sessions resampled within each
 * quartile: an interval conditional on the observed quartiles), this one does not treat the split as known.
 * Reference: Efron & Tibshirani (1993) ch. 6 (the bootstrap replicates the whole estimation procedure).
 */
export function quartileDifferenceResamplingPz(
  groups: Map<string, Int32Array>,
  quality: Float64Array,
  cost: Float64Array,
  features: Float64Array[],
  options: { replicates: number; seed: number },
): Array<ConfidenceInterval | null> {
  const tasks = [...groups.values()].filter((g) => g.length >= 2);
  const N = tasks.reduce((n, g) => n + g.length, 0);
  if (N < 2 || options.replicates <= 0) return features.map(() => null);
  const random = seededRandom(options.seed);
  const k = Math.ceil(N / 4);
  const draws = new Int32Array(N);
  const pz = new Float64Array(N);
  const scratch = new Float64Array(N);
  const values = features.map(() => [] as number[]);
  const q = new Float64Array(Math.max(...tasks.map((g) => g.length)));
  const c = new Float64Array(q.length);
  const top = new Int32Array(k);
  const bottom = new Int32Array(k);
  for (let r = 0; r < options.replicates; r++) {
    let at = 0;
    for (const idx of tasks) {
      const n = idx.length;
      for (let j = 0; j < n; j++) {
        const i = idx[Math.floor(random() * n)]!;
        draws[at + j] = i;
        q[j] = quality[i]!;
        c[j] = cost[i]!;
      }
      // z within the resampled task, as zScores (sample SD; SD 0 → z 0) without allocating
      const mq = mean(q.subarray(0, n));
      const mc = mean(c.subarray(0, n));
      const sq = Math.sqrt(compensatedSumOfSquares(q.subarray(0, n), mq) / (n - 1));
      const sc = Math.sqrt(compensatedSumOfSquares(c.subarray(0, n), mc) / (n - 1));
      for (let j = 0; j < n; j++) pz[at + j] = (sq > 0 ? (q[j]! - mq) / sq : 0) - (sc > 0 ? (c[j]! - mc) / sc : 0);
      at += n;
    }
    selectQuartiles(pz, draws, k, scratch, bottom, top);
    features.forEach((f, col) => {
      const d = meanOf(f, draws, top) - meanOf(f, draws, bottom);
      if (Number.isFinite(d)) values[col]!.push(d);
    });
  }
  return values.map((v) => (v.length ? { low: percentile(v, 2.5), high: percentile(v, 97.5), replicates: v.length } : null));
}

function meanOf(f: Float64Array, draws: Int32Array, picked: Int32Array): number {
  let sum = 0;
  let n = 0;
  for (let j = 0; j < picked.length; j++) {
    const v = f[draws[picked[j]!]!]!;
    if (!Number.isNaN(v)) (sum += v), n++;
  }
  return n === 0 ? NaN : sum / n;
}

/**
 * The k draws with the lowest and the k with the highest Pz, in O(N) (quickselect for the two cut values,
 * then a scan). Ties at a cut are broken as a full sort by (Pz, session index, draw position) would:
 * the bottom takes the smallest keys, the top the largest.
 */
function selectQuartiles(pz: Float64Array, draws: Int32Array, k: number, scratch: Float64Array, bottom: Int32Array, top: Int32Array): void {
  const N = pz.length;
  scratch.set(pz);
  const low = quickselect(scratch, k - 1, 0);
  // after the first selection everything from position k − 1 on is ≥ low: select the top cut there only
  const high = quickselect(scratch, N - k, Math.min(k - 1, N - k));
  let nb = 0;
  let nt = 0;
  const lowTies: number[] = [];
  const highTies: number[] = [];
  for (let j = 0; j < N; j++) {
    const v = pz[j]!;
    if (v < low) bottom[nb++] = j;
    else if (v === low) lowTies.push(j);
    if (v > high) top[nt++] = j;
    else if (v === high) highTies.push(j);
  }
  const key = (a: number, b: number) => draws[a]! - draws[b]! || a - b;
  if (nb < k) for (const j of lowTies.sort(key).slice(0, k - nb)) bottom[nb++] = j;
  if (nt < k) for (const j of highTies.sort(key).slice(highTies.length - (k - nt))) top[nt++] = j;
}

/** The value at position `n` of the sorted a[from..] (Hoare's selection; reorders that part of `a`). */
function quickselect(a: Float64Array, n: number, from: number): number {
  let lo = from;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (n <= j) hi = j;
    else if (n >= i) lo = i;
    else return a[n]!;
  }
  return a[n]!;
}
