import { mean } from '../stats/mean';
import { percentile } from '../stats/percentile';
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
  const pools = strata.map((s) => Float64Array.from([...s.a, ...s.b]));
  const shuffled: Stratum[] = strata.map((s) => ({ task: s.task, a: new Float64Array(s.a.length), b: new Float64Array(s.b.length) }));
  let extreme = 0;
  const tolerance = 1e-12 * Math.max(1, observed);
  for (let r = 0; r < permutations; r++) {
    pools.forEach((pool, k) => {
      shuffle(pool, random);
      shuffled[k]!.a.set(pool.subarray(0, strata[k]!.a.length));
      shuffled[k]!.b.set(pool.subarray(strata[k]!.a.length));
    });
    if (Math.abs(stratifiedDifference(shuffled)) >= observed - tolerance) extreme++;
  }
  return (1 + extreme) / (permutations + 1);
}

/** Seeded percentile-bootstrap 95% interval of T, resampling sessions within each task and condition. */
export function stratifiedBootstrapCi(strata: readonly Stratum[], replicates: number, seed: number): [number, number] | null {
  if (strata.length === 0 || replicates <= 0) return null;
  const random = seededRandom(seed);
  const values = new Float64Array(replicates);
  const resampled: Stratum[] = strata.map((s) => ({ task: s.task, a: new Float64Array(s.a.length), b: new Float64Array(s.b.length) }));
  for (let r = 0; r < replicates; r++) {
    strata.forEach((s, k) => {
      const out = resampled[k]!;
      for (let i = 0; i < s.a.length; i++) out.a[i] = s.a[Math.floor(random() * s.a.length)]!;
      for (let i = 0; i < s.b.length; i++) out.b[i] = s.b[Math.floor(random() * s.b.length)]!;
    });
    values[r] = stratifiedDifference(resampled);
  }
  return [percentile(values, 2.5), percentile(values, 97.5)];
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
