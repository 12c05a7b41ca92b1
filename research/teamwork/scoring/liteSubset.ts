/**
 * Lite subset: k tasks per dimension whose overall score best preserves the full ranking, measured by
 * Kendall's τ-b between full and lite overall scores over the models used to choose it; τ is then
 * reported on held-out models that played no part in the choice. The search is exhaustive when the
 * number of subsets is small (≤ 20,000), else coordinate ascent (swap one task at a time while τ rises,
 * starting from each dimension's first k tasks); ties go to the smaller total |full − lite| gap, then ids.
 */
import type { TeamworkRun } from '../../../common/teamworkRun';
import { byDimension, dimensionValue, overallValue } from './dimensionScores';
import { kendallTauB } from './kendallTau';
import { taskTallies, type TaskTally } from './taskTallies';

export interface LiteSubset {
  k: number;
  tasks: Record<string, string[]>;
  chosen_on: string[];
  held_out: string[];
  tau_chosen_on: number | null;
  tau_held_out: number | null;
  search: 'exhaustive' | 'coordinate ascent';
  note?: string;
}

const EXHAUSTIVE_LIMIT = 20_000;

function combinations<T>(items: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (items.length < k) return [];
  const [first, ...rest] = items;
  return [...combinations(rest, k - 1).map((c) => [first!, ...c]), ...combinations(rest, k)];
}

function overall(tallies: Map<string, TaskTally>, subset: ReadonlyArray<readonly string[]>): number | null {
  return overallValue(subset.map((ids) => dimensionValue(ids.flatMap((id) => (tallies.has(id) ? [tallies.get(id)!] : [])))));
}

/** `heldOut` default: every second model of the full ranking (2nd, 4th, …) when there are at least four. */
export function liteSubset(runs: readonly TeamworkRun[], k: number, heldOut?: readonly string[]): LiteSubset {
  const models = [...new Set(runs.map((r) => r.model))].sort();
  const tallies = new Map(models.map((m) => [m, taskTallies(runs.filter((r) => r.model === m))]));
  const all = byDimension(new Map([...tallies.values()].flatMap((t) => [...t])).values());
  const dims = [...all.keys()];
  const pools = dims.map((d) => [...new Set(all.get(d)!.map((t) => t.task))].sort());
  const full = (m: string) => overall(tallies.get(m)!, pools);
  const ranked = [...models].sort((a, b) => (full(b) ?? -1) - (full(a) ?? -1) || a.localeCompare(b));
  const held = heldOut ?? (ranked.length >= 4 ? ranked.filter((_, i) => i % 2 === 1) : []);
  const chosenOn = ranked.filter((m) => !held.includes(m));
  const tauOn = (group: readonly string[], subset: ReadonlyArray<readonly string[]>): number | null => {
    const scored = group.filter((m) => full(m) !== null && overall(tallies.get(m)!, subset) !== null);
    return kendallTauB(scored.map((m) => full(m)!), scored.map((m) => overall(tallies.get(m)!, subset)!));
  };
  const gap = (subset: ReadonlyArray<readonly string[]>) => chosenOn.reduce((n, m) => n + Math.abs((full(m) ?? 0) - (overall(tallies.get(m)!, subset) ?? 0)), 0);
  const better = (a: ReadonlyArray<readonly string[]>, b: ReadonlyArray<readonly string[]> | undefined): boolean => {
    if (!b) return true;
    const ta = tauOn(chosenOn, a) ?? -2;
    const tb = tauOn(chosenOn, b) ?? -2;
    if (ta !== tb) return ta > tb;
    const ga = gap(a);
    const gb = gap(b);
    if (Math.abs(ga - gb) > 1e-12) return ga < gb;
    return a.flat().join(',') < b.flat().join(',');
  };
  const options = pools.map((p) => combinations(p, Math.min(k, p.length)));
  const count = options.reduce((n, o) => n * o.length, 1);
  let best: string[][] | undefined;
  let search: LiteSubset['search'];
  if (count <= EXHAUSTIVE_LIMIT) {
    search = 'exhaustive';
    const walk = (i: number, chosen: string[][]): void => {
      if (i === options.length) {
        if (better(chosen, best)) best = chosen.map((c) => [...c]);
        return;
      }
      for (const c of options[i]!) walk(i + 1, [...chosen, c]);
    };
    walk(0, []);
  } else {
    search = 'coordinate ascent';
    let current: string[][] = options.map((o) => o[0]!);
    for (let improved = true; improved; ) {
      improved = false;
      for (let i = 0; i < options.length; i++) {
        for (const c of options[i]!) {
          const candidate: string[][] = current.map((x, j) => (j === i ? c : x));
          if ((tauOn(chosenOn, candidate) ?? -2) > (tauOn(chosenOn, current) ?? -2)) {
            current = candidate;
            improved = true;
          }
        }
      }
    }
    best = current;
  }
  const subset = best ?? [];
  return {
    k,
    tasks: Object.fromEntries(dims.map((d, i) => [d, subset[i] ?? []])),
    chosen_on: chosenOn,
    held_out: [...held],
    tau_chosen_on: tauOn(chosenOn, subset),
    tau_held_out: held.length >= 2 ? tauOn(held, subset) : null,
    search,
    ...(held.length < 2 ? { note: 'τ on held-out models needs at least two held-out models (four models in all by default)' } : {}),
  };
}
