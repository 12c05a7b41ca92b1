import { percentile } from '../stats/percentile';
import { seededRandom } from '../stats/seededRandom';
import { zScores } from '../stats/zScores';
import type { ConfidenceInterval } from '../stats/bootstrapCi';

/**
 * Percentile-bootstrap 95% intervals of top-minus-bottom quartile differences that carry the uncertainty
 * of the quartiles themselves: each replicate resamples every task's scored sessions with replacement
 * (task sizes kept), recomputes z(Q), z(C) and Pz within each resampled task, takes the top and bottom
 * ceil(N/4) draws by Pz (ties by draw order after sorting by session index, deterministic), and
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
  const order = new Uint32Array(N);
  const values = features.map(() => [] as number[]);
  for (let r = 0; r < options.replicates; r++) {
    let at = 0;
    for (const idx of tasks) {
      const n = idx.length;
      const q = new Float64Array(n);
      const c = new Float64Array(n);
      for (let j = 0; j < n; j++) {
        const i = idx[Math.floor(random() * n)]!;
        draws[at + j] = i;
        q[j] = quality[i]!;
        c[j] = cost[i]!;
      }
      const zq = zScores(q);
      const zc = zScores(c);
      for (let j = 0; j < n; j++) pz[at + j] = zq[j]! - zc[j]!;
      at += n;
    }
    for (let j = 0; j < N; j++) order[j] = j;
    order.sort((a, b) => pz[a]! - pz[b]! || draws[a]! - draws[b]! || a - b);
    features.forEach((f, col) => {
      const d = meanOf(f, draws, order, N - k, N) - meanOf(f, draws, order, 0, k);
      if (Number.isFinite(d)) values[col]!.push(d);
    });
  }
  return values.map((v) => (v.length ? { low: percentile(v, 2.5), high: percentile(v, 97.5), replicates: v.length } : null));
}

function meanOf(f: Float64Array, draws: Int32Array, order: Uint32Array, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (let j = from; j < to; j++) {
    const v = f[draws[order[j]!]!]!;
    if (!Number.isNaN(v)) (sum += v), n++;
  }
  return n === 0 ? NaN : sum / n;
}
