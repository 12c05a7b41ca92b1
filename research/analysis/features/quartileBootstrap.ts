import { percentile } from '../../../lib/stats/percentile';
import type { ConfidenceInterval } from '../../../lib/stats/bootstrapCi';
import { mulberry32StateAfter } from '../../../lib/stats/seededRandom';
import { startReplicates, type KernelPlan } from '../parallel/runReplicates';

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
  return startQuartileDifferenceResamplingPz(groups, quality, cost, features, options).join();
}

/** quartileDifferenceResamplingPz started on the worker threads now and joined later (runReplicates' startReplicates). */
export function startQuartileDifferenceResamplingPz(
  groups: Map<string, Int32Array>,
  quality: Float64Array,
  cost: Float64Array,
  features: Float64Array[],
  options: { replicates: number; seed: number },
): { join(): Array<ConfidenceInterval | null> } {
  const plan = quartilePlan(groups, quality, cost, features);
  if (plan === null || options.replicates <= 0) return { join: () => features.map(() => null) };
  const F = plan.features;
  const pending = startReplicates('quartileDifference', quartileReplicates, plan, options.seed, options.replicates, F, plan.taskStart[plan.taskStart.length - 1]!);
  return { join: () => intervalsOf(pending.join(), F, options.replicates) };
}

function intervalsOf(differences: Float64Array, F: number, replicates: number): Array<ConfidenceInterval | null> {
  return Array.from({ length: F }, (_, col) => {
    const v: number[] = [];
    for (let r = 0; r < replicates; r++) {
      const d = differences[r * F + col]!;
      if (Number.isFinite(d)) v.push(d);
    }
    return v.length ? { low: percentile(v, 2.5), high: percentile(v, 97.5), replicates: v.length } : null;
  });
}

/**
 * What every replicate reads, as flat typed arrays (so a worker thread can share them): the scored
 * sessions of the tasks with at least two, task after task ("rows"), each row's session index, quality
 * and cost side by side, and its F feature values side by side (a task's rows are contiguous, so the
 * features of a replicate's picks are read from one task's block at a time instead of anywhere in the
 * whole table: that random access into megabytes was the kernel's largest cost).
 */
export interface QuartilePlan extends KernelPlan {
  /** Task t owns rows taskStart[t] … taskStart[t+1] − 1. */
  taskStart: Int32Array;
  /** Session index of each row (ties at a cut are broken by it). */
  session: Int32Array;
  /** quality, cost of row j at 2j, 2j + 1. */
  qc: Float64Array;
  /** Feature col of row j at j·features + col (NaN: missing). */
  rows: Float64Array;
  features: number;
}

/** The plan, or null when fewer than two sessions are in tasks with two or more. */
export function quartilePlan(groups: Map<string, Int32Array>, quality: Float64Array, cost: Float64Array, features: Float64Array[]): QuartilePlan | null {
  const tasks = [...groups.values()].filter((g) => g.length >= 2);
  const N = tasks.reduce((n, g) => n + g.length, 0);
  if (N < 2) return null;
  const F = features.length;
  const taskStart = new Int32Array(tasks.length + 1);
  const session = new Int32Array(N);
  const qc = new Float64Array(2 * N);
  const rows = new Float64Array(N * F);
  let at = 0;
  tasks.forEach((idx, t) => {
    taskStart[t] = at;
    for (let j = 0; j < idx.length; j++, at++) {
      const i = idx[j]!;
      session[at] = i;
      qc[2 * at] = quality[i]!;
      qc[2 * at + 1] = cost[i]!;
      for (let col = 0; col < F; col++) rows[at * F + col] = features[col]![i]!;
    }
  });
  taskStart[tasks.length] = N;
  return { taskStart, session, qc, rows, features: F };
}

/**
 * Replicates from … to − 1 of the quartile bootstrap: out[r·F + col] = top − bottom mean of feature col in
 * replicate r (NaN when a quartile has no value of it). Replicate r draws N numbers from mulberry32(seed)
 * starting at the state after r·N draws, so any split of the replicates gives what one pass gives.
 */
export function quartileReplicates(plan: QuartilePlan, seed: number, from: number, to: number, out: Float64Array): void {
  const { taskStart, session, qc, rows, features: F } = plan;
  const T = taskStart.length - 1;
  const N = taskStart[T]!;
  const k = Math.ceil(N / 4);
  let largest = 0;
  for (let g = 0; g < T; g++) largest = Math.max(largest, taskStart[g + 1]! - taskStart[g]!);
  const draws = new Int32Array(N);
  const drawRow = new Int32Array(N);
  const pz = new Float64Array(N);
  const scratch = new Float64Array(N);
  const counts = new Int32Array(bucketsFor(N));
  const bucketOf = new Uint16Array(N);
  const q = new Float64Array(largest);
  const c = new Float64Array(largest);
  const top = new Int32Array(k);
  const bottom = new Int32Array(k);
  const sumTop = new Float64Array(F);
  const sumBottom = new Float64Array(F);
  const nTop = new Int32Array(F);
  const nBottom = new Int32Array(F);
  for (let r = from; r < to; r++) {
    let state = mulberry32StateAfter(seed, r * N); // mulberry32, inlined below: same sequence as seededRandom(seed)
    let at = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let g = 0; g < T; g++) {
      const start = taskStart[g]!;
      const n = taskStart[g + 1]! - start;
      // one pass: draw, copy, and the compensated (Neumaier) sums of mean() for q and c, in mean()'s order
      let sq = 0;
      let eq = 0;
      let sc = 0;
      let ec = 0;
      for (let j = 0; j < n; j++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        const row = start + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
        draws[at + j] = session[row]!;
        drawRow[at + j] = row;
        const x = qc[2 * row]!;
        const y = qc[2 * row + 1]!;
        q[j] = x;
        c[j] = y;
        const tq = sq + x;
        eq += Math.abs(sq) >= Math.abs(x) ? sq - tq + x : x - tq + sq;
        sq = tq;
        const tc = sc + y;
        ec += Math.abs(sc) >= Math.abs(y) ? sc - tc + y : y - tc + sc;
        sc = tc;
      }
      const mq = (sq + eq) / n;
      const mc = (sc + ec) / n;
      // z within the resampled task, as zScores (sample SD; SD 0 → z 0): compensatedSumOfSquares for both
      let vq = 0;
      let fq = 0;
      let vc = 0;
      let fc = 0;
      for (let j = 0; j < n; j++) {
        const dq = q[j]! - mq;
        const xq = dq * dq;
        const tq = vq + xq;
        fq += Math.abs(vq) >= xq ? vq - tq + xq : xq - tq + vq;
        vq = tq;
        const dc = c[j]! - mc;
        const xc = dc * dc;
        const tc = vc + xc;
        fc += Math.abs(vc) >= xc ? vc - tc + xc : xc - tc + vc;
        vc = tc;
      }
      const sdq = Math.sqrt((vq + fq) / (n - 1));
      const sdc = Math.sqrt((vc + fc) / (n - 1));
      for (let j = 0; j < n; j++) {
        const v = (sdq > 0 ? (q[j]! - mq) / sdq : 0) - (sdc > 0 ? (c[j]! - mc) / sdc : 0);
        pz[at + j] = v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      at += n;
    }
    selectQuartiles(pz, draws, k, min, max, counts, bucketOf, scratch, bottom, top);
    meansOf(rows, F, drawRow, top, sumTop, nTop);
    meansOf(rows, F, drawRow, bottom, sumBottom, nBottom);
    for (let col = 0; col < F; col++) {
      out[r * F + col] = (nTop[col] === 0 ? NaN : sumTop[col]! / nTop[col]!) - (nBottom[col] === 0 ? NaN : sumBottom[col]! / nBottom[col]!);
    }
  }
}

/** Per column, the sum and count of the present (non-NaN) values over the picked draws, in pick order. */
function meansOf(rows: Float64Array, F: number, drawRow: Int32Array, picked: Int32Array, sums: Float64Array, ns: Int32Array): void {
  sums.fill(0);
  ns.fill(0);
  for (let j = 0; j < picked.length; j++) {
    const base = drawRow[picked[j]!]! * F;
    for (let col = 0; col < F; col++) {
      const v = rows[base + col]!;
      if (!Number.isNaN(v)) (sums[col]! += v), ns[col]!++;
    }
  }
}

/** Histogram buckets for the order statistics: about 8 values a bucket, within [16, 65536]. */
function bucketsFor(N: number): number {
  return Math.max(16, Math.min(65536, N >> 3));
}

/**
 * The k draws with the lowest and the k with the highest Pz, in O(N) (the two cut values by
 * orderStatistics, then a scan). Ties at a cut are broken as a full sort by (Pz, session index, draw
 * position) would: the bottom takes the smallest keys, the top the largest.
 */
function selectQuartiles(
  pz: Float64Array, draws: Int32Array, k: number, min: number, max: number, counts: Int32Array, bucketOf: Uint16Array<ArrayBufferLike>, scratch: Float64Array, bottom: Int32Array, top: Int32Array,
): void {
  const N = pz.length;
  const [low, high] = orderStatistics(pz, k - 1, N - k, min, max, counts, scratch, bucketOf);
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

/**
 * The values at sorted positions a ≤ b of `values` (all within [min, max], no NaN), exactly as sorting
 * would give them: values are counted into equal-width buckets (a monotone map, so bucket order is value
 * order), the buckets holding positions a and b are copied out and quickselect runs on those only.
 */
export function orderStatistics(
  values: Float64Array, a: number, b: number, min: number, max: number, counts: Int32Array, scratch: Float64Array, bucketOf: Uint16Array<ArrayBufferLike> = new Uint16Array(values.length),
): [number, number] {
  if (!(max > min)) return [min, min];
  const B = counts.length;
  const scale = B / (max - min);
  if (!(scale > 0 && scale < Infinity)) {
    // a range too wide (or too narrow) for buckets: plain selection over everything
    scratch.set(values);
    const valueA = quickselect(scratch, a, 0, values.length - 1);
    return [valueA, quickselect(scratch, b, a, values.length - 1)];
  }
  counts.fill(0);
  // each value's bucket is kept (B ≤ 65536 fits 16 bits) for the second pass
  for (let j = 0; j < values.length; j++) {
    const g = Math.min(B - 1, Math.floor((values[j]! - min) * scale));
    bucketOf[j] = g;
    counts[g]!++;
  }
  let below = 0;
  let ba = -1;
  let bb = -1;
  let belowA = 0;
  let belowB = 0;
  for (let g = 0; g < B && bb < 0; g++) {
    const next = below + counts[g]!;
    if (ba < 0 && a < next) (ba = g), (belowA = below);
    if (b < next) (bb = g), (belowB = below);
    below = next;
  }
  // copy bucket ba to scratch[0..), bucket bb (when another) after it
  const sizeA = counts[ba]!;
  let ia = 0;
  let ib = sizeA;
  for (let j = 0; j < values.length; j++) {
    const g = bucketOf[j]!;
    if (g === ba) scratch[ia++] = values[j]!;
    else if (g === bb) scratch[ib++] = values[j]!;
  }
  const valueA = quickselect(scratch, a - belowA, 0, sizeA - 1);
  const valueB = ba === bb ? quickselect(scratch, b - belowA, 0, sizeA - 1) : quickselect(scratch, sizeA + b - belowB, sizeA, ib - 1);
  return [valueA, valueB];
}

/** The value at position `n` of the sorted a[from..to] (Hoare's selection; reorders that part of `a`). */
function quickselect(a: Float64Array, n: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
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
