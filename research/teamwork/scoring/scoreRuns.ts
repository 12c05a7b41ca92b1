/**
 * scores.json from runs alone (**contract**, design.md "Teamwork runs"). Per model:
 *  - excluded runs (status error or refused) are counted and never scored;
 *  - solved-alone gate: a task counts when every alone run that counts passed (at least one did run);
 *  - dimension test = mean test-run value over the gated tasks' runs, baseline = the same over calm runs,
 *    drop = baseline − test; overall = mean of the defined dimension test scores; all on 0–100;
 *  - ci95: seeded stratified bootstrap over the model's gated tasks within each dimension;
 *  - differences between adjacent models of the ranking: paired bootstrap over the tasks of each
 *    dimension that either model ran, each model scored on its own gated tasks among those drawn;
 *  - failure modes over the failed test runs of gated tasks; tokens and (with prices) dollars over all runs.
 */
import { runValue, type TeamworkRun } from '../../../common/teamworkRun';
import { byDimension, dimensionValue, overallValue } from './dimensionScores';
import { judgeAgreement, type AgreementFigures } from './judgeAgreement';
import { dollars, type PriceFile } from './prices';
import { stratifiedBootstrapCi, type BootstrapOptions } from './stratifiedBootstrap';
import { excludedRuns, taskTallies, type TaskTally } from './taskTallies';

export const DEFAULT_REPLICATES = 4000;
export const DEFAULT_BOOTSTRAP_SEED = 20260101;

export interface DimensionScore {
  n_tasks: number;
  n_gated: number;
  baseline: number | null;
  test: number | null;
  drop: number | null;
  ci95: [number, number] | null;
}

export interface ModelScores {
  overall: { score: number | null; ci95: [number, number] | null };
  solved_alone: string[];
  dimensions: Record<string, DimensionScore>;
  failure_modes: { missed_it: number; gave_in: number; other: number };
  excluded_runs: { total: number; error: number; refused: number };
  runs: { total: number; scored: number };
  tokens: { input: number; output: number; o200k_input: number; o200k_output: number; judge_input: number; judge_output: number; per_run: { input: number; output: number } };
  /** Dollars for the subject's tokens over all runs (null without a price for the model). */
  cost_usd: number | null;
  cost_usd_per_run: number | null;
}

export interface Scores {
  schema_version: 1;
  scale: '0-100';
  settings: { replicates: number; seed: number; gate: string; prices: boolean };
  models: Record<string, ModelScores>;
  /** Models by overall score, best first (ties by name; models without a score last). */
  ranking: string[];
  differences: Array<{ higher: string; lower: string; difference: number | null; ci95: [number, number] | null }>;
  judge_agreement: { overall: AgreementFigures; dimensions: Record<string, AgreementFigures> };
}

export interface ScoreOptions extends Partial<BootstrapOptions> {
  prices?: PriceFile;
}

const pct = (v: number | null): number | null => (v === null ? null : 100 * v);
const pctCi = (ci: [number, number] | null): [number, number] | null => (ci ? [100 * ci[0], 100 * ci[1]] : null);

function modelScores(runs: readonly TeamworkRun[], model: string, boot: BootstrapOptions, prices: PriceFile | undefined): { scores: ModelScores; tallies: Map<string, TaskTally> } {
  const tallies = taskTallies(runs);
  const groups = byDimension(tallies.values());
  const gatedGroups = [...groups.values()].map((list) => list.filter((t) => t.gated));
  const dimensions: Record<string, DimensionScore> = {};
  [...groups].forEach(([dimension, list], i) => {
    const gated = gatedGroups[i]!;
    const test = dimensionValue(gated, 'test');
    const baseline = dimensionValue(gated, 'calm');
    dimensions[dimension] = {
      n_tasks: list.length,
      n_gated: gated.length,
      baseline: pct(baseline),
      test: pct(test),
      drop: baseline !== null && test !== null ? 100 * (baseline - test) : null,
      ci95: gated.length > 0 ? pctCi(stratifiedBootstrapCi([gated], (d) => dimensionValue(d[0]!), boot)) : null,
    };
  });
  const overall = overallValue(gatedGroups.map((g) => dimensionValue(g)));
  const nonEmpty = gatedGroups.filter((g) => g.length > 0);
  const overallCi = nonEmpty.length > 0 ? stratifiedBootstrapCi(nonEmpty, (drawn) => overallValue(drawn.map((g) => dimensionValue(g))), boot) : null;
  const gatedAll = gatedGroups.flat();
  const sum = (f: (r: TeamworkRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const tokens = { input: sum((r) => r.tokens.input), output: sum((r) => r.tokens.output) };
  const cost = dollars(prices, model, tokens);
  const perRun = (v: number) => (runs.length > 0 ? v / runs.length : 0);
  return {
    tallies,
    scores: {
      overall: { score: pct(overall), ci95: pctCi(overallCi) },
      solved_alone: [...tallies.values()].filter((t) => t.gated).map((t) => t.task),
      dimensions,
      failure_modes: {
        missed_it: gatedAll.reduce((n, t) => n + t.missedIt, 0),
        gave_in: gatedAll.reduce((n, t) => n + t.gaveIn, 0),
        other: gatedAll.reduce((n, t) => n + t.otherFailures, 0),
      },
      excluded_runs: excludedRuns(runs),
      runs: { total: runs.length, scored: gatedAll.reduce((n, t) => n + t.test.n, 0) },
      tokens: {
        ...tokens,
        o200k_input: sum((r) => r.tokens.o200k_input ?? r.tokens.input),
        o200k_output: sum((r) => r.tokens.o200k_output ?? r.tokens.output),
        judge_input: sum((r) => r.judge_tokens?.input ?? 0),
        judge_output: sum((r) => r.judge_tokens?.output ?? 0),
        per_run: { input: perRun(tokens.input), output: perRun(tokens.output) },
      },
      cost_usd: cost,
      cost_usd_per_run: cost === null ? null : perRun(cost),
    },
  };
}

/** Paired bootstrap of overall(a) − overall(b) (0–100), resampling each dimension's tasks run by either. */
export function differenceCi(a: Map<string, TaskTally>, b: Map<string, TaskTally>, boot: BootstrapOptions): [number, number] | null {
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  const dimensionOf = (id: string) => (a.get(id) ?? b.get(id))!.dimension;
  const strata = [...new Set(ids.map(dimensionOf))].sort().map((d) => ids.filter((id) => dimensionOf(id) === d));
  const overallOf = (tallies: Map<string, TaskTally>, drawn: ReadonlyArray<readonly string[]>) =>
    overallValue(drawn.map((g) => dimensionValue(g.flatMap((id) => (tallies.has(id) ? [tallies.get(id)!] : [])))));
  return pctCi(
    stratifiedBootstrapCi(strata, (drawn) => {
      const x = overallOf(a, drawn);
      const y = overallOf(b, drawn);
      return x === null || y === null ? null : x - y;
    }, boot),
  );
}

export function scoreRuns(runs: readonly TeamworkRun[], options: ScoreOptions = {}): Scores {
  const boot: BootstrapOptions = { replicates: options.replicates ?? DEFAULT_REPLICATES, seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED };
  const models = [...new Set(runs.map((r) => r.model))].sort();
  const results = new Map(models.map((m) => [m, modelScores(runs.filter((r) => r.model === m), m, boot, options.prices)]));
  const score = (m: string) => results.get(m)!.scores.overall.score;
  const ranking = [...models].sort((x, y) => (score(y) ?? -Infinity) - (score(x) ?? -Infinity) || x.localeCompare(y));
  const differences = ranking.slice(1).map((lower, i) => {
    const higher = ranking[i]!;
    const sx = score(higher);
    const sy = score(lower);
    return { higher, lower, difference: sx === null || sy === null ? null : sx - sy, ci95: differenceCi(results.get(higher)!.tallies, results.get(lower)!.tallies, boot) };
  });
  return {
    schema_version: 1,
    scale: '0-100',
    settings: { replicates: boot.replicates, seed: boot.seed, gate: 'solved alone: every alone run that counts passed', prices: options.prices !== undefined },
    models: Object.fromEntries(models.map((m) => [m, results.get(m)!.scores])),
    ranking,
    differences,
    judge_agreement: judgeAgreement(runs),
  };
}

/** Values a run contributes, for readers that want the per-run view (leaderboard, tests). */
export { runValue };
