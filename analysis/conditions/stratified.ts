import { mean } from '../stats/mean';
import { seededRandom } from '../stats/seededRandom';
import { kruskalWallis } from '../stats/kruskalWallis';

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
