import { percentile } from './percentile';
import type { ConfidenceInterval } from './bootstrapCi';

/**
 * Percentile bootstrap 95% interval of mean(a) − mean(b) for two independent groups, resampling each
 * group's units with replacement separately (group sizes fixed; a's draws first, then b's, per replicate;
 * mulberry32 seeded as seededRandom). Null when either group is empty.
 * Reference: Efron & Tibshirani (1993), An Introduction to the Bootstrap, §8.3 (two-sample problem).
 */
export function bootstrapMeanDifferenceCi(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: { replicates: number; seed: number },
): ConfidenceInterval | null {
  return bootstrapMeanDifferencesCi([a], [b], options)[0] ?? null;
}

/**
 * The same interval for several measurements of the same units at once (column k of a vs column k of b):
 * each replicate draws one resample of the units and applies it to every column, so the result for each
 * column equals bootstrapMeanDifferenceCi on that column alone with the same seed.
 */
export function bootstrapMeanDifferencesCi(
  columnsA: ArrayLike<number>[],
  columnsB: ArrayLike<number>[],
  options: { replicates: number; seed: number },
): Array<ConfidenceInterval | null> {
  const k = columnsA.length;
  const na = columnsA[0]?.length ?? 0;
  const nb = columnsB[0]?.length ?? 0;
  if (na === 0 || nb === 0) return columnsA.map(() => null);
  const values = columnsA.map(() => new Float64Array(options.replicates));
  // unit-major copies so one draw reads its k values from one cache line
  const rowsA = unitMajor(columnsA, na);
  const rowsB = unitMajor(columnsB, nb);
  const sumA = new Float64Array(k);
  const sumB = new Float64Array(k);
  let state = options.seed >>> 0; // mulberry32, inlined: same sequence as seededRandom(seed)
  for (let r = 0; r < options.replicates; r++) {
    for (const [rows, n, sum] of [[rowsA, na, sumA], [rowsB, nb, sumB]] as const) {
      sum.fill(0);
      for (let i = 0; i < n; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        const base = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) * k;
        for (let c = 0; c < k; c++) sum[c]! += rows[base + c]!;
      }
    }
    for (let c = 0; c < k; c++) values[c]![r] = sumA[c]! / na - sumB[c]! / nb;
  }
  return values.map((v) => ({ low: percentile(v, 2.5), high: percentile(v, 97.5), replicates: options.replicates }));
}

function unitMajor(columns: ArrayLike<number>[], n: number): Float64Array {
  const k = columns.length;
  const out = new Float64Array(n * k);
  for (let c = 0; c < k; c++) for (let i = 0; i < n; i++) out[i * k + c] = columns[c]![i]!;
  return out;
}
