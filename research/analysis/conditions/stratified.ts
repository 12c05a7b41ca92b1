import { mean } from '../../../lib/stats/mean';
import { mulberry32StateAfter, seededRandom } from '../../../lib/stats/seededRandom';
import { runReplicates, type KernelPlan } from '../parallel/runReplicates';
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
  const S = first.length;
  const observed = strataOf.map((strata) => Math.abs(stratifiedDifference(strata)));
  const tolerance = observed.map((o) => 1e-12 * Math.max(1, o));
  // per stratum: the pooled values of every metric side by side (row j = position j, M values), totals per metric
  const poolStart = new Int32Array(S + 1);
  const na = new Int32Array(S);
  const drawsBefore = new Float64Array(S);
  first.forEach((st, k) => {
    na[k] = st.a.length;
    poolStart[k + 1] = poolStart[k]! + st.a.length + st.b.length;
    if (k + 1 < S) drawsBefore[k + 1] = drawsBefore[k]! + st.a.length;
  });
  const pools = new Float64Array(poolStart[S]! * M);
  const totals = new Float64Array(S * M);
  strataOf.forEach((strata, m) => {
    strata.forEach((st, k) => {
      const base = poolStart[k]!;
      for (let j = 0; j < st.a.length; j++) pools[(base + j) * M + m] = st.a[j]!;
      for (let j = 0; j < st.b.length; j++) pools[(base + st.a.length + j) * M + m] = st.b[j]!;
      totals[k * M + m] = [...st.a, ...st.b].reduce((x, v) => x + v, 0);
    });
  });
  const weights = Float64Array.from(first, (st) => (st.a.length * st.b.length) / (st.a.length + st.b.length));
  const wsum = weights.reduce((x, w) => x + w, 0);
  const perPermutation = drawsBefore[S - 1]! + na[S - 1]!;
  const plan: PermutationPlan = { poolStart, pools, na, weights, totals, drawsBefore, metrics: M, permutations, perPermutation };
  // each stratum's pool is shuffled on from one permutation to the next, so a stratum (all its permutations) is the unit of work
  const terms = runReplicates('stratifiedPermutation', permutationTerms, plan, seed, S, permutations * M, (perPermutation / S) * permutations);
  const extreme = new Float64Array(M);
  const t = new Float64Array(M);
  for (let r = 0; r < permutations; r++) {
    t.fill(0);
    for (let k = 0; k < S; k++) for (let m = 0; m < M; m++) t[m]! += terms[(k * permutations + r) * M + m]!;
    for (let m = 0; m < M; m++) if (Math.abs(t[m]! / wsum) >= observed[m]! - tolerance[m]!) extreme[m]!++;
  }
  return Array.from(extreme, (e) => (1 + e) / (permutations + 1));
}

/** stratifiedPermutationPs's strata as flat arrays: stratum k's pool is rows poolStart[k] … poolStart[k+1] − 1 (M values a row, a's first). */
export interface PermutationPlan extends KernelPlan {
  poolStart: Int32Array;
  pools: Float64Array;
  na: Int32Array;
  weights: Float64Array;
  /** Sum of stratum k's pool for metric m at k·metrics + m. */
  totals: Float64Array;
  /** Draws a permutation makes before it reaches stratum k (Σ of the earlier strata's n_a). */
  drawsBefore: Float64Array;
  metrics: number;
  permutations: number;
  /** Draws of one permutation over every stratum. */
  perPermutation: number;
}

/**
 * Units from … to − 1 are strata: for each, all permutations in order (its pool is shuffled on in place,
 * a partial Fisher–Yates of n_a positions, drawing where one sequential pass over every stratum would),
 * out[(k·permutations + r)·M + m] = w_k·(mean_a − mean_b) of metric m in permutation r.
 */
export function permutationTerms(plan: PermutationPlan, seed: number, from: number, to: number, out: Float64Array): void {
  const { poolStart, pools, na: sizes, weights, totals, drawsBefore, metrics: M, permutations, perPermutation } = plan;
  const sumA = new Float64Array(M);
  for (let k = from; k < to; k++) {
    const base = poolStart[k]!;
    const na = sizes[k]!;
    const n = poolStart[k + 1]! - base;
    for (let r = 0; r < permutations; r++) {
      let state = mulberry32StateAfter(seed, r * perPermutation + drawsBefore[k]!); // mulberry32 of seededRandom, inlined
      sumA.fill(0);
      for (let i = 0; i < na; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let z = state;
        z = Math.imul(z ^ (z >>> 15), z | 1);
        z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
        const j = i + Math.floor((((z ^ (z >>> 14)) >>> 0) / 4294967296) * (n - i));
        for (let m = 0; m < M; m++) {
          const v = pools[(base + j) * M + m]!;
          pools[(base + j) * M + m] = pools[(base + i) * M + m]!;
          pools[(base + i) * M + m] = v;
          sumA[m]! += v;
        }
      }
      for (let m = 0; m < M; m++) out[(k * permutations + r) * M + m] = weights[k]! * (sumA[m]! / na - (totals[k * M + m]! - sumA[m]!) / (n - na));
    }
  }
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
