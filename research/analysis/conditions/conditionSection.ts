import type { SessionTable } from '../input/sessionsFile';
import type { Quadrant } from '../productivity/withinTaskZ';
import { QUADRANTS } from '../productivity/withinTaskZ';
import { holmAdjust } from '../../../lib/stats/adjustP';
import { mannWhitneyU } from '../../../lib/stats/mannWhitneyU';
import { cliffsDelta } from '../../../lib/stats/cliffsDelta';
import { cohenD } from '../../../lib/stats/cohenD';
import { contingencyTest, type ContingencyTestResult } from '../../../lib/stats/contingency';
import { describeGroup, type GroupStats } from './describeGroup';
import { combine, interval, resampledMeansShared } from './resampledMeans';

const NO_BOOTSTRAP = { replicates: 0, seed: 0 };
import { compareTwo, omnibus, type ConditionComparison, type OmnibusTest } from './compareGroups';
import { stratifiedDifference, stratifiedKruskalWallis, stratifiedPermutationPs, type Stratum } from './stratified';

/** Conditions need this many sessions with a value in a task to be compared there. */
export const MIN_PER_CONDITION = 2;
const RESERVED = new Set(['comparisons', 'omnibus', 'too_few']);

/** `<metric>` block: `{<condition>: {n, mean, median, sd, mean_ci95}, comparisons, omnibus, too_few}`. */
export type MetricBlock = Record<string, GroupStats> & {
  comparisons: ConditionComparison[];
  omnibus: OmnibusTest | null;
  /** Conditions left out of this task's comparisons: fewer than MIN_PER_CONDITION sessions with a value. */
  too_few: Array<{ condition: string; n: number }>;
};

export interface QuadrantBlock {
  counts: Record<string, Record<Quadrant, number>>;
  test: ContingencyTestResult | null;
  p_holm: number | null;
}

export interface ConditionSection {
  /** Condition names found (sorted). */
  names: string[];
  n_without_condition: number;
  replicates: number;
  seed: number;
  /** Metric keys: quality, cost, pz, then likert_<item>. */
  metrics: string[];
  /** Holm families: every p in one family is adjusted together. */
  families: Record<string, string>;
  /** Per task: the metric blocks at conditions.tasks.<task>.<metric>, plus n_without_condition and quadrants. */
  tasks: Record<string, Record<string, MetricBlock> & { n_without_condition: number; quadrants: QuadrantBlock }>;
  /** Across tasks (stratified by task): the same shape; p is the stratified permutation p. */
  pooled: Record<string, MetricBlock> & { quadrants: QuadrantBlock; tasks_used: Record<string, string[]> };
  notes: string[];
}

export interface ConditionInputs {
  sessions: SessionTable;
  scored: (i: number) => boolean;
  cost: Float64Array;
  pz: Float64Array;
  quadrant: (i: number) => Quadrant | null;
}

/**
 * The condition comparison: for each task and pooled across tasks (stratified by task), for quality,
 * cost, Pz and each Likert item, per-condition n/mean/median/SD and every pair of conditions compared
 * (difference of means with a seeded bootstrap interval, Mann–Whitney U and p, Cliff's δ, Cohen's d;
 * Kruskal–Wallis over all conditions when there are three or more), plus the quadrant distribution by
 * condition (χ² or Fisher exact). Pooled p-values come from permuting condition labels within task.
 * Holm's adjustment runs over three families (quality/cost/Pz; Likert items; quadrants).
 */
export function conditionSection(input: ConditionInputs, options: { replicates: number; seed: number }): ConditionSection {
  const s = input.sessions;
  const names = [...new Set(s.conditions.filter((c): c is string => c !== null))].sort();
  const metrics = ['quality', 'cost', 'pz', ...s.likertItems.map((i) => `likert_${i}`)].filter((m) => !RESERVED.has(m));
  const notes: string[] = [];
  const clash = names.filter((n) => RESERVED.has(n));
  if (clash.length) notes.push(`condition name(s) ${clash.join(', ')} collide with block keys and are left out of the comparison`);
  const usable = names.filter((n) => !RESERVED.has(n));
  const valueOf = (metric: string): ((i: number) => number) => {
    if (metric === 'quality') return (i) => (input.scored(i) ? s.quality[i]! : NaN);
    if (metric === 'cost') return (i) => (input.scored(i) ? input.cost[i]! : NaN);
    if (metric === 'pz') return (i) => input.pz[i]!;
    const k = s.likertItems.indexOf(metric.slice('likert_'.length));
    return (i) => s.likert[k]![i]!;
  };
  const taskNames = [...new Set(s.tasks)].sort();
  const byTask = new Map<string, number[]>(taskNames.map((t) => [t, []]));
  s.tasks.forEach((t, i) => byTask.get(t)!.push(i));
  const withoutCondition = s.conditions.filter((c) => c === null).length;
  if (withoutCondition > 0) notes.push(`${withoutCondition} session(s) without a condition are left out of the condition comparison`);
  const section: ConditionSection = {
    names,
    n_without_condition: withoutCondition,
    replicates: options.replicates,
    seed: options.seed,
    metrics,
    families: {
      outcomes: 'every per-task and pooled p (pairwise and omnibus) of quality, cost and pz',
      likert: 'every per-task and pooled p of the likert_<item> metrics',
      quadrants: 'the per-task and pooled quadrant-distribution tests',
    },
    tasks: {},
    pooled: { quadrants: { counts: {}, test: null, p_holm: null }, tasks_used: {} } as ConditionSection['pooled'],
    notes,
  };
  if (usable.length < 2) {
    notes.push(usable.length === 0 ? 'no session has a condition: nothing to compare' : `one condition only (${usable[0]}): nothing to compare`);
    return section;
  }
  const values = (metric: string, rows: number[], condition: string) => {
    const get = valueOf(metric);
    return Float64Array.from(rows.filter((i) => s.conditions[i] === condition).map(get).filter((v) => !Number.isNaN(v)));
  };

  for (const task of taskNames) {
    const rows = byTask.get(task)!;
    const entry = { n_without_condition: rows.filter((i) => s.conditions[i] === null).length } as ConditionSection['tasks'][string];
    entry.quadrants = quadrantBlock(usable, rows.filter(input.scored), s.conditions, input.quadrant);
    section.tasks[task] = entry;
  }
  const perTaskOf = new Map(metrics.map((metric) => [metric, taskNames.map((t) => new Map(usable.map((c) => [c, values(metric, byTask.get(t)!, c)])))]));
  const meansOf = sharedResampledMeans(perTaskOf, options);
  const permutationPOf = sharedPermutationPs(perTaskOf, usable, taskNames, options);
  for (const metric of metrics) {
    const perTask = perTaskOf.get(metric)!;
    const means = meansOf.get(metric)!;
    taskNames.forEach((t, k) => (section.tasks[t]![metric] = metricBlock([...perTask[k]!], means[k]!)));
    const { block, used } = pooledBlock(usable, taskNames, perTask, means, options, (a, b) => permutationPOf.get(`${metric}\u0000${a}\u0000${b}`) ?? null);
    section.pooled[metric] = block;
    section.pooled.tasks_used[metric] = used;
  }
  section.pooled.quadrants = quadrantBlock(usable, s.tasks.map((_, i) => i).filter(input.scored), s.conditions, input.quadrant);
  adjustFamilies(section);
  return section;
}

type Means = Map<string, Float64Array | null>;

/**
 * One set of bootstrap means per metric, task and condition (sessions resampled within task and
 * condition, the generator seeded afresh per metric) serves every interval: group means, within-task
 * differences, pooled ones. Metrics whose group sizes are all the same (quality, cost and Pz when no
 * scored session lacks one) get the same draws from the same seed, so they are resampled together.
 */
function sharedResampledMeans(perTaskOf: Map<string, Array<Map<string, Float64Array>>>, options: { replicates: number; seed: number }): Map<string, Means[]> {
  const out = new Map<string, Means[]>();
  for (const group of sameSizes(perTaskOf)) {
    const flat = group.map((metric) => perTaskOf.get(metric)!.flatMap((m) => [...m.values()]));
    const means = options.replicates > 0 ? resampledMeansShared(flat, options.replicates, options.seed) : flat.map((gs) => gs.map(() => null));
    group.forEach((metric, k) => {
      let at = 0;
      out.set(metric, perTaskOf.get(metric)!.map((m) => new Map([...m.keys()].map((c) => [c, means[k]![at++]!]))));
    });
  }
  return out;
}

/** Metrics grouped by the sizes of their task × condition groups (same sizes → same draws from one seed). */
function sameSizes(perTaskOf: Map<string, Array<Map<string, Float64Array>>>): string[][] {
  const bySizes = new Map<string, string[]>();
  for (const [metric, perTask] of perTaskOf) {
    const sizes = perTask.map((m) => [...m.values()].map((v) => v.length).join(',')).join(';');
    bySizes.set(sizes, [...(bySizes.get(sizes) ?? []), metric]);
  }
  return [...bySizes.values()];
}

/** The strata of a pooled comparison of a and b: the tasks where both have MIN_PER_CONDITION values. */
function pairStrata(taskNames: string[], perTask: Array<Map<string, Float64Array>>, a: string, b: string): Stratum[] {
  const strata: Stratum[] = [];
  perTask.forEach((m, t) => {
    const va = m.get(a)!;
    const vb = m.get(b)!;
    if (va.length >= MIN_PER_CONDITION && vb.length >= MIN_PER_CONDITION) strata.push({ task: taskNames[t]!, a: va, b: vb });
  });
  return strata;
}

/**
 * The stratified permutation p of every pooled pair and metric (keyed metric, a, b), metrics with the same
 * group sizes permuted together (stratifiedPermutationPs: the same p as one stratifiedPermutationP each).
 */
function sharedPermutationPs(
  perTaskOf: Map<string, Array<Map<string, Float64Array>>>,
  conditions: string[],
  taskNames: string[],
  options: { replicates: number; seed: number },
): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const group of sameSizes(perTaskOf)) {
    for (let x = 0; x < conditions.length; x++) {
      for (let y = x + 1; y < conditions.length; y++) {
        const [a, b] = [conditions[x]!, conditions[y]!];
        const strataOf = group.map((metric) => pairStrata(taskNames, perTaskOf.get(metric)!, a, b));
        const ps = stratifiedPermutationPs(strataOf, options.replicates, options.seed);
        group.forEach((metric, k) => out.set(`${metric}\u0000${a}\u0000${b}`, ps[k]!));
      }
    }
  }
  return out;
}

function metricBlock(groups: Array<[string, Float64Array]>, means: Means): MetricBlock {
  const block = { comparisons: [], omnibus: null, too_few: [] } as unknown as MetricBlock;
  for (const [c, v] of groups) block[c] = { ...describeGroup(v, NO_BOOTSTRAP), mean_ci95: v.length > 1 ? interval(means.get(c) ?? null) : null };
  const enough = groups.filter(([c, v]) => {
    if (v.length >= MIN_PER_CONDITION) return true;
    block.too_few.push({ condition: c, n: v.length });
    return false;
  });
  for (let x = 0; x < enough.length; x++) {
    for (let y = x + 1; y < enough.length; y++) {
      const [[a, va], [b, vb]] = [enough[x]!, enough[y]!];
      block.comparisons.push(compareTwo(a, b, va, vb, interval(combine([[1, means.get(a) ?? null, means.get(b) ?? null]]))));
    }
  }
  if (enough.length >= 3) block.omnibus = omnibus(enough.map(([, v]) => v));
  return block;
}

function pooledBlock(
  conditions: string[],
  taskNames: string[],
  perTask: Array<Map<string, Float64Array>>,
  means: Means[],
  options: { replicates: number; seed: number },
  permutationP: (a: string, b: string) => number | null,
): { block: MetricBlock; used: string[] } {
  const block = { comparisons: [], omnibus: null, too_few: [] } as unknown as MetricBlock;
  const all = (c: string) => Float64Array.from(perTask.flatMap((m) => Array.from(m.get(c)!)));
  for (const c of conditions) {
    const values = all(c);
    // pooled mean of a condition = Σₜ nₜ·meanₜ / Σₜ nₜ, so its bootstrap is the same weighted sum of the task resamples
    const parts = perTask.map((m, t): [number, Float64Array | null] => [m.get(c)!.length, means[t]!.get(c) ?? null]).filter(([n]) => n > 0);
    const total = parts.reduce((s, [n]) => s + n, 0);
    const ci = values.length > 1 ? interval(combine(parts.map(([n, m]) => [n / total, m, null]))) : null;
    block[c] = { ...describeGroup(values, NO_BOOTSTRAP), mean_ci95: ci };
  }
  const used = new Set<string>();
  for (let x = 0; x < conditions.length; x++) {
    for (let y = x + 1; y < conditions.length; y++) {
      const [a, b] = [conditions[x]!, conditions[y]!];
      const strata: Stratum[] = [];
      const weighted: Array<[number, Float64Array | null, Float64Array | null]> = [];
      perTask.forEach((m, t) => {
        const va = m.get(a)!;
        const vb = m.get(b)!;
        if (va.length >= MIN_PER_CONDITION && vb.length >= MIN_PER_CONDITION) {
          strata.push({ task: taskNames[t]!, a: va, b: vb });
          weighted.push([(va.length * vb.length) / (va.length + vb.length), means[t]!.get(a) ?? null, means[t]!.get(b) ?? null]);
        }
      });
      const wsum = weighted.reduce((s, [w]) => s + w, 0);
      weighted.forEach((e) => (e[0] /= wsum));
      if (strata.length === 0) continue;
      strata.forEach((st) => used.add(st.task));
      const xa = Float64Array.from(strata.flatMap((st) => Array.from(st.a)));
      const xb = Float64Array.from(strata.flatMap((st) => Array.from(st.b)));
      const p = permutationP(a, b);
      block.comparisons.push({
        a,
        b,
        n_a: xa.length,
        n_b: xb.length,
        diff: stratifiedDifference(strata),
        ci95: interval(combine(weighted)),
        u: mannWhitneyU(xa, xb)?.u ?? null,
        p,
        method: p === null ? null : 'stratified_permutation',
        p_holm: null,
        cliffs_delta: cliffsDelta(xa, xb),
        cohen_d: cohenD(xa, xb),
        p_permutation: p,
      });
    }
  }
  for (const c of conditions) if (!perTask.some((m) => m.get(c)!.length >= MIN_PER_CONDITION)) block.too_few.push({ condition: c, n: block[c]!.n });
  if (conditions.length >= 3) {
    const kw = stratifiedKruskalWallis(
      perTask.map((m) => conditions.map((c) => m.get(c)!).filter((v) => v.length >= MIN_PER_CONDITION)),
      options.replicates,
      options.seed,
    );
    if (kw) block.omnibus = { test: 'stratified_permutation_kruskal_wallis', h: kw.h, df: kw.df, p: kw.p, p_holm: null };
  }
  return { block, used: [...used].sort() };
}

function quadrantBlock(conditions: string[], rows: number[], of: Array<string | null>, quadrant: (i: number) => Quadrant | null): QuadrantBlock {
  const counts: QuadrantBlock['counts'] = {};
  for (const c of conditions) counts[c] = Object.fromEntries(QUADRANTS.map((q) => [q, 0])) as Record<Quadrant, number>;
  for (const i of rows) {
    const c = of[i];
    const q = quadrant(i);
    if (c !== null && c !== undefined && counts[c] && q !== null) counts[c][q]++;
  }
  return { counts, test: contingencyTest(conditions.map((c) => QUADRANTS.map((q) => counts[c]![q]))), p_holm: null };
}

function adjustFamilies(section: ConditionSection): void {
  const outcome: Array<{ p: number | null; p_holm: number | null }> = [];
  const likert: typeof outcome = [];
  const quadrants: QuadrantBlock[] = [];
  const collect = (blocks: Record<string, unknown>) => {
    for (const metric of section.metrics) {
      const block = blocks[metric] as MetricBlock | undefined;
      if (!block) continue;
      const family = metric.startsWith('likert_') ? likert : outcome;
      family.push(...block.comparisons);
      if (block.omnibus) family.push(block.omnibus);
    }
  };
  for (const t of Object.values(section.tasks)) {
    collect(t);
    quadrants.push(t.quadrants);
  }
  collect(section.pooled);
  quadrants.push(section.pooled.quadrants);
  for (const family of [outcome, likert]) holmAdjust(family.map((e) => e.p)).forEach((v, i) => (family[i]!.p_holm = v));
  holmAdjust(quadrants.map((q) => q.test?.p ?? null)).forEach((v, i) => (quadrants[i]!.p_holm = v));
}
