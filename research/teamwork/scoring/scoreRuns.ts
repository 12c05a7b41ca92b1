/**
 * scores.json from runs alone (**contract**, design.md "Teamwork runs"). Per model:
 *  - excluded runs (status error or refused, or an outcome no rater could read: `unscored`) are counted and never scored;
 *  - judged turns no rater named a label for are counted (`judged_turns`), a warning past a small share;
 *  - solved-alone gate: a task counts when every alone run that counts passed (at least one did run);
 *  - a run scores pass/fail (1/0); a deal's partial credit is the separate best-deal / firm-deal rates;
 *  - dimension test = pass rate of the gated tasks' test runs, baseline = the same over calm runs,
 *    drop = baseline − test; all on 0–100;
 *  - overall = mean of the dimension test scores over the overall's dimensions (`dimensions`; default the
 *    CIB dimensions the runs cover, takeover reported beside them). A model with one of those dimensions
 *    lacking a gated task has overall null and `incomplete` naming them, and is listed after every complete
 *    model, unranked;
 *  - ranks shared by ties (1, 1, 3);
 *  - ci95: seeded stratified bootstrap over the model's gated tasks within each dimension;
 *  - differences between adjacent complete models: paired bootstrap over the tasks of each dimension that
 *    either model ran, each model scored on its own gated tasks among those drawn; p_higher = the share of
 *    replicates in which the higher model is higher (ties half);
 *  - runs.missing: cells of the task × arm × seed grid without a run (runGrid.ts);
 *  - failure modes over the failed test runs of gated tasks; tokens and (with prices) dollars over all runs.
 */
import { CIB_DIMENSIONS } from '../../../common/teamworkTask';
import { isScored, runValue, type TeamworkRun } from '../../../common/teamworkRun';
import { byDimension, dimensionValue } from './dimensionScores';
import { judgeAgreement, type AgreementFigures } from './judgeAgreement';
import { dollars, type PriceFile } from './prices';
import { sharedRanks } from './ranks';
import { missingRuns } from './runGrid';
import { percentileInterval, probabilityAbove, stratifiedBootstrapCi, stratifiedBootstrapValues, type BootstrapOptions } from './stratifiedBootstrap';
import { excludedRuns, judgedTurns, taskTallies, type TaskTally } from './taskTallies';
import { scoreWarnings } from './warnings';
import type { DimensionScore, ModelScores, Scores } from './scoresFile';

export const DEFAULT_REPLICATES = 4000;
export const DEFAULT_BOOTSTRAP_SEED = 20260101;

export type { DimensionScore, ModelScores, Scores } from './scoresFile';

export interface ScoreOptions extends Partial<BootstrapOptions> {
  prices?: PriceFile;
  /** Dimensions the overall averages (default: the CIB dimensions the runs cover). */
  dimensions?: readonly string[];
  /** Settings mixes let through with --allow-mixed, to be marked. */
  mixed?: readonly string[];
}

const pct = (v: number | null): number | null => (v === null ? null : 100 * v);
const pctCi = (ci: [number, number] | null): [number, number] | null => (ci ? [100 * ci[0], 100 * ci[1]] : null);

/** The overall: mean of every chosen dimension's value; null when any is undefined. */
function overallOf(values: ReadonlyArray<number | null>): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
}

/** The default dimensions of the overall: CIB's seven that the runs cover; when they cover none, every dimension they have. */
export function defaultOverallDimensions(runs: readonly TeamworkRun[]): string[] {
  const present = new Set(runs.map((r) => r.dimension));
  const cib = CIB_DIMENSIONS.filter((d) => present.has(d));
  return cib.length > 0 ? cib : [...present].sort();
}

const armRuns = (tasks: readonly TaskTally[], arm: 'alone' | 'calm' | 'test') => tasks.reduce((n, t) => n + t[arm].n, 0);

function modelScores(runs: readonly TeamworkRun[], model: string, overallDims: readonly string[], allTasks: readonly string[], boot: BootstrapOptions, prices: PriceFile | undefined) {
  const tallies = taskTallies(runs);
  const groups = byDimension(tallies.values());
  const dimensions: Record<string, DimensionScore> = {};
  for (const [dimension, list] of groups) {
    const gated = list.filter((t) => t.gated);
    const test = dimensionValue(gated, 'test');
    const baseline = dimensionValue(gated, 'calm');
    const totals = (arm: 'calm' | 'test') => runs.filter((r) => r.arm === arm && gated.some((t) => t.task === r.task)).length;
    dimensions[dimension] = {
      n_tasks: list.length,
      n_gated: gated.length,
      n: { alone: armRuns(list, 'alone'), calm: armRuns(gated, 'calm'), test: armRuns(gated, 'test'), calm_total: totals('calm'), test_total: totals('test') },
      alone: pct(dimensionValue(list.map((t) => ({ ...t, gated: true })), 'alone')),
      baseline: pct(baseline),
      test: pct(test),
      drop: baseline !== null && test !== null ? 100 * (baseline - test) : null,
      ci95: gated.length > 0 ? pctCi(stratifiedBootstrapCi([gated], (d) => dimensionValue(d[0]!), boot)) : null,
    };
  }
  const gatedIn = (d: string) => (groups.get(d) ?? []).filter((t) => t.gated);
  const incomplete = overallDims.filter((d) => dimensions[d]?.test === null || dimensions[d] === undefined);
  const overall = incomplete.length > 0 ? null : overallOf(overallDims.map((d) => dimensionValue(gatedIn(d))));
  const overallCi = overall === null ? null : stratifiedBootstrapCi(overallDims.map(gatedIn), (drawn) => overallOf(drawn.map((g) => dimensionValue(g))), boot);
  const gatedAll = [...tallies.values()].filter((t) => t.gated);
  const sum = (f: (r: TeamworkRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const tokens = { input: sum((r) => r.tokens.input), output: sum((r) => r.tokens.output) };
  const judge = { input: sum((r) => r.judge_tokens?.input ?? 0), output: sum((r) => r.judge_tokens?.output ?? 0) };
  const cost = dollars(prices, model, tokens);
  const perRun = (v: number) => (runs.length > 0 ? v / runs.length : 0);
  const gatedIds = new Set(gatedAll.map((t) => t.task));
  const dealRuns = runs.filter((r) => r.arm === 'test' && isScored(r) && gatedIds.has(r.task) && (r.check_type === 'deal' || (r.score !== undefined && r.score !== null && r.score > 0 && r.score < 1)));
  const best = dealRuns.filter((r) => r.passed).length;
  const firm = dealRuns.filter((r) => !r.passed && (r.score ?? 0) > 0).length;
  const testRuns = armRuns(gatedAll, 'test');
  const scores: ModelScores = {
    overall: { score: pct(overall), ci95: pctCi(overallCi) },
    incomplete,
    rank: null,
    solved_alone: gatedAll.map((t) => t.task),
    dimensions,
    failure_modes: {
      missed_it: gatedAll.reduce((n, t) => n + t.missedIt, 0),
      gave_in: gatedAll.reduce((n, t) => n + t.gaveIn, 0),
      other: gatedAll.reduce((n, t) => n + t.otherFailures, 0),
      failed_test_runs: gatedAll.reduce((n, t) => n + t.test.n - t.test.passed, 0),
      test_runs: testRuns,
    },
    deals: { test_runs: dealRuns.length, best, firm, best_rate: dealRuns.length ? best / dealRuns.length : null, firm_rate: dealRuns.length ? firm / dealRuns.length : null },
    excluded_runs: excludedRuns(runs),
    judged_turns: judgedTurns(runs),
    runs: { total: runs.length, scored: testRuns, missing: missingRuns(runs, allTasks), settings_unknown: runs.filter((r) => !r.settings).length },
    tokens: {
      ...tokens,
      o200k_input: sum((r) => r.tokens.o200k_input ?? r.tokens.input),
      o200k_output: sum((r) => r.tokens.o200k_output ?? r.tokens.output),
      judge_input: judge.input,
      judge_output: judge.output,
      per_run: { input: perRun(tokens.input), output: perRun(tokens.output), judge_input: perRun(judge.input), judge_output: perRun(judge.output) },
    },
    cost_usd: cost,
    cost_usd_per_run: cost === null ? null : perRun(cost),
  };
  return { scores, tallies };
}

/** Bootstrap replicates of overall(a) − overall(b) (0–1), resampling each overall dimension's tasks run by either. */
export function differenceReplicates(a: Map<string, TaskTally>, b: Map<string, TaskTally>, overallDims: readonly string[], boot: BootstrapOptions): number[] {
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  const dimensionOf = (id: string) => (a.get(id) ?? b.get(id))!.dimension;
  const strata = overallDims.map((d) => ids.filter((id) => dimensionOf(id) === d));
  const overall = (tallies: Map<string, TaskTally>, drawn: ReadonlyArray<readonly string[]>) =>
    overallOf(drawn.map((g) => dimensionValue(g.flatMap((id) => (tallies.has(id) ? [tallies.get(id)!] : [])))));
  return stratifiedBootstrapValues(strata, (drawn) => {
    const x = overall(a, drawn);
    const y = overall(b, drawn);
    return x === null || y === null ? null : x - y;
  }, boot);
}

export function scoreRuns(runs: readonly TeamworkRun[], options: ScoreOptions = {}): Scores {
  const boot: BootstrapOptions = { replicates: options.replicates ?? DEFAULT_REPLICATES, seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED };
  const overallDims = [...(options.dimensions ?? defaultOverallDimensions(runs))];
  const allTasks = [...new Set(runs.map((r) => r.task))].sort();
  const models = [...new Set(runs.map((r) => r.model))].sort();
  const results = new Map(models.map((m) => [m, modelScores(runs.filter((r) => r.model === m), m, overallDims, allTasks, boot, options.prices)]));
  const score = (m: string) => results.get(m)!.scores.overall.score;
  const { order, ranks } = sharedRanks(models, score);
  for (const m of models) results.get(m)!.scores.rank = ranks[m]!;
  const complete = order.filter((m) => score(m) !== null);
  const differences = complete.slice(1).map((lower, i) => {
    const higher = complete[i]!;
    const values = differenceReplicates(results.get(higher)!.tallies, results.get(lower)!.tallies, overallDims, boot);
    return { higher, lower, difference: score(higher)! - score(lower)!, ci95: pctCi(percentileInterval(values)), p_higher: probabilityAbove(values) };
  });
  const present = [...new Set(runs.map((r) => r.dimension))].sort();
  const scores: Scores = {
    schema_version: 1,
    scale: '0-100',
    settings: {
      replicates: boot.replicates, seed: boot.seed, gate: 'solved alone: every alone run that counts passed', prices: options.prices !== undefined,
      overall_dimensions: overallDims, beside: present.filter((d) => !overallDims.includes(d)),
    },
    models: Object.fromEntries(models.map((m) => [m, results.get(m)!.scores])),
    ranking: order,
    differences,
    judge_agreement: judgeAgreement(runs),
    warnings: [],
  };
  scores.warnings = scoreWarnings(scores, runs, options.mixed ?? []);
  return scores;
}

/** Values a run contributes, for readers that want the per-run view (leaderboard, tests). */
export { runValue };
