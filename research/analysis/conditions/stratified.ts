import { mean } from '../../../lib/stats/mean';
import { seededRandom } from '../../../lib/stats/seededRandom';
import { kruskalWallis } from '../../../lib/stats/kruskalWallis';

/** One task's values of a metric for two conditions. */
export interface Stratum {
  task: string;
  a: Float64Array;
  b: Float64Array;
}

/**
 * Stratified (by task) difference of condition means: T = Σₜ wₜ (x̄ₐ,ₜ − x̄_b,ₜ) / Σₜ wₜ with
 * wₜ = nₐ,ₜ·n_b,ₜ/(nₐ,ₜ + n_b,ₜ) (the weights of the van Elteren / Cochran–Mantel–Haenszel family: a task
 * counts by how much information it holds on the difference, not by its raw size).
 */
export function stratifiedDifference(strata: readonly Stratum[]): number {
  let num = 0;
  let den = 0;
  for (const s of strata) {
    const w = (s.a.length * s.b.length) / (s.a.length + s.b.length);
    num += w * (mean(s.a) - mean(s.b));
    den += w;
  }
  return num / den;
}

/**
 * Two-sided stratified permutation test of T: condition labels are permuted within each task (the
 * task's a and b sessions shuffled together, group sizes kept), p = (1 + #{|T*| ≥ |T|}) / (B + 1).
 * Reference: Good (2005), Permutation, Parametric and Bootstrap Tests of Hypotheses, §3.6 (blocked designs).
 */
export function stratifiedPermutationP(strata: readonly Stratum[], permutations: number, seed: number): number | null {
  if (strata.length === 0 || permutations <= 0) return null;
  const observed = Math.abs(stratifiedDifference(strata));
  const random = seededRandom(seed);
  // per stratum: the pooled values, their total and weight; a permutation only has to pick the a-group
  // (a partial Fisher–Yates shuffle of n_a positions), b is the rest
  const pools = strata.map((s) => Float64Array.from([...s.a, ...s.b]));
  const totals = pools.map((p) => p.reduce((x, v) => x + v, 0));
  const weights = strata.map((s) => (s.a.length * s.b.length) / (s.a.length + s.b.length));
  const wsum = weights.reduce((x, w) => x + w, 0);
  let extreme = 0;
  const tolerance = 1e-12 * Math.max(1, observed);
  for (let r = 0; r < permutations; r++) {
    let t = 0;
    for (let k = 0; k < pools.length; k++) {
      const pool = pools[k]!;
      const na = strata[k]!.a.length;
      const n = pool.length;
      let sumA = 0;
      for (let i = 0; i < na; i++) {
        const j = i + Math.floor(random() * (n - i));
        const v = pool[j]!;
        pool[j] = pool[i]!;
        pool[i] = v;
        sumA += v;
      }
      t += weights[k]! * (sumA / na - (totals[k]! - sumA) / (n - na));
    }
    if (Math.abs(t / wsum) >= observed - tolerance) extreme++;
  }
  return (1 + extreme) / (permutations + 1);
}

/**
 * stratifiedPermutationP for several metrics whose strata have the same sizes (a and b of stratum k as
 * long in every metric): the permutation draws depend on the sizes only, so one shuffle of positions
 * serves every metric and result m equals stratifiedPermutationP(strataOf[m], permutations, seed) exactly
 * (same draws, same sums in the same order; mulberry32 of seededRandom inlined).
 */
export function stratifiedPermutationPs(strataOf: readonly (readonly Stratum[])[], permutations: number, seed: number): Array<number | null> {
  const M = strataOf.length;
  const first = strataOf[0];
  if (!first || first.length === 0 || permutations <= 0) return strataOf.map(() => null);
  for (const strata of strataOf) {
    if (strata.length !== first.length || strata.some((s, k) => s.a.length !== first[k]!.a.length || s.b.length !== first[k]!.b.length)) {
      throw new Error('stratifiedPermutationPs: strata sizes differ between metrics');
    }
  }
  const observed = strataOf.map((strata) => Math.abs(stratifiedDifference(strata)));
  const tolerance = observed.map((o) => 1e-12 * Math.max(1, o));
  // per stratum: the pooled values of every metric side by side (row j = position j, M values), totals per metric
  const pools = first.map((_, k) => {
    const na = first[k]!.a.length;
    const n = na + first[k]!.b.length;
    const rows = new Float64Array(n * M);
    strataOf.forEach((strata, m) => {
      const s = strata[k]!;
      for (let j = 0; j < na; j++) rows[j * M + m] = s.a[j]!;
      for (let j = na; j < n; j++) rows[j * M + m] = s.b[j - na]!;
    });
    return rows;
  });
  const totals = strataOf.map((strata) => strata.map((s) => [...s.a, ...s.b].reduce((x, v) => x + v, 0)));
  const weights = first.map((s) => (s.a.length * s.b.length) / (s.a.length + s.b.length));
  const wsum = weights.reduce((x, w) => x + w, 0);
  const extreme = new Float64Array(M);
  const sumA = new Float64Array(M);
  const t = new Float64Array(M);
  let state = seed >>> 0;
  for (let r = 0; r < permutations; r++) {
    t.fill(0);
    for (let k = 0; k < pools.length; k++) {
      const pool = pools[k]!;
      const na = first[k]!.a.length;
      const n = na + first[k]!.b.length;
      sumA.fill(0);
      for (let i = 0; i < na; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let z = state;
        z = Math.imul(z ^ (z >>> 15), z | 1);
        z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
        const j = i + Math.floor((((z ^ (z >>> 14)) >>> 0) / 4294967296) * (n - i));
        for (let m = 0; m < M; m++) {
          const v = pool[j * M + m]!;
          pool[j * M + m] = pool[i * M + m]!;
          pool[i * M + m] = v;
          sumA[m]! += v;
        }
      }
      for (let m = 0; m < M; m++) t[m]! += weights[k]! * (sumA[m]! / na - (totals[m]![k]! - sumA[m]!) / (n - na));
    }
    for (let m = 0; m < M; m++) if (Math.abs(t[m]! / wsum) >= observed[m]! - tolerance[m]!) extreme[m]!++;
  }
  return Array.from(extreme, (e) => (1 + e) / (permutations + 1));
}

/**
 * Omnibus for three or more conditions pooled over tasks: H = Σₜ Hₜ (Kruskal–Wallis within each task),
 * p by permuting condition labels within task, as above. Null when no task has two comparable groups.
 */
export function stratifiedKruskalWallis(tasks: readonly Float64Array[][], permutations: number, seed: number): { h: number; df: number; p: number | null } | null {
  const usable = tasks.filter((groups) => groups.filter((g) => g.length > 0).length >= 2);
  const total = (gs: readonly Float64Array[][]) => gs.reduce((sum, groups) => sum + (kruskalWallis(groups)?.h ?? 0), 0);
  if (usable.length === 0) return null;
  const observed = total(usable);
  const df = usable.reduce((d, groups) => d + groups.filter((g) => g.length > 0).length - 1, 0);
  if (permutations <= 0) return { h: observed, df, p: null };
  const random = seededRandom(seed);
  const pools = usable.map((groups) => Float64Array.from(groups.flatMap((g) => Array.from(g))));
  let extreme = 0;
  for (let r = 0; r < permutations; r++) {
    const permuted = usable.map((groups, k) => {
      const pool = pools[k]!;
      shuffle(pool, random);
      let at = 0;
      return groups.map((g) => pool.slice(at, (at += g.length)));
    });
    if (total(permuted) >= observed - 1e-12 * Math.max(1, observed)) extreme++;
  }
  return { h: observed, df, p: (1 + extreme) / (permutations + 1) };
}

/** Fisher–Yates shuffle in place. */
function shuffle(values: Float64Array, random: () => number): void {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = values[i]!;
    values[i] = values[j]!;
    values[j] = t;
  }
}
