/**
 * summary.json.preregistered (`npm run analyze -- <dataset> --prereg`): the locked plan's primary comparison run
 * exactly as planned (its exclusions, λ and cost definition, test, direction and alpha) on the dataset, the plan's
 * secondary outcomes, n per condition against the plan, and every deviation: those the platform recorded
 * (deviations.csv) and this run's own settings where they differ from the plan. Pure: the caller reads the files.
 */
import type { LockedPlan, PlanComparison, PlanOutcome } from '../../../common/preregistration';
import type { Dataset } from '../input/dataset';
import type { AnalysisOptions } from '../summary';
import { mean } from '../../../lib/stats/mean';
import { interactionCost } from '../productivity/costDefinitions';
import { scoredByTask } from '../productivity/taskGroups';
import { withinTaskProductivity } from '../productivity/withinTaskZ';
import { applyExclusions, type ExclusionCounts } from './exclusions';
import { plannedTest, type PlannedTestResult } from './plannedTest';
import type { ExclusionColumns, RecordedDeviation } from './planInput';
import { sameModel, type JudgeSettings } from './judgeSettings';

export interface ComparisonResult {
  outcome: PlanOutcome;
  a: string;
  b: string;
  n_a: number;
  n_b: number;
  mean_a: number | null;
  mean_b: number | null;
  /** mean_a − mean_b */
  diff: number | null;
  test: PlannedTestResult | null;
  alpha: number;
  /** p < alpha (null without a test). */
  significant: boolean | null;
}

export interface SectionDeviation {
  source: 'platform' | 'analysis';
  kind: string;
  file: string;
  field: string;
  message: string;
  justification: string | null;
}

/** Where an analyze --prereg run kept its own deviations (recordRunDeviations.ts). */
export interface RunDeviationRecord {
  recorded_in: 'store' | 'file';
  /** The store's description, or the file's path. */
  where: string;
  /** Recorded by this run. */
  new: number;
  /** Already on record from an earlier run (nothing new stored). */
  already_recorded: number;
  /** Why they are not in the study's store (recorded_in file). */
  reason: string | null;
}

export interface PreregisteredSection {
  version: number;
  locked_at: string;
  plan_hash: string;
  study_hash: string;
  hypothesis: { id: string; text: string };
  outcome: PlanOutcome;
  comparison: PlanComparison;
  exclusions: ExclusionCounts;
  /** Per condition of the comparison: the planned n and the n the test used. */
  n_per_condition: Record<string, { planned: number; observed: number }>;
  primary: ComparisonResult;
  secondary: ComparisonResult[];
  deviations: SectionDeviation[];
  /** Where this run's own deviations (source analysis) were kept; null when it made none. */
  run_deviations: RunDeviationRecord | null;
}

/** The outcome of every session (NaN where it has none) among the kept sessions. */
function outcomeValues(outcome: PlanOutcome, data: Dataset, keep: Uint8Array, plan: LockedPlan['plan']): Float64Array {
  const s = data.sessions;
  const n = s.ids.length;
  const quality = Float64Array.from(s.quality, (q, i) => (keep[i] ? q : NaN));
  if (outcome === 'quality') return quality;
  const cost = interactionCost(plan.analysis.cost, s.counts, plan.analysis.lambda);
  if (outcome === 'cost') return Float64Array.from(cost, (c, i) => (keep[i] ? c : NaN));
  if (outcome === 'pz') return withinTaskProductivity(scoredByTask(s.tasks, quality), quality, cost).pz;
  const k = s.likertItems.indexOf(outcome.slice('likert:'.length));
  const out = new Float64Array(n).fill(NaN);
  if (k >= 0) for (let i = 0; i < n; i++) if (keep[i]) out[i] = s.likert[k]![i]!;
  return out;
}

function compare(outcome: PlanOutcome, c: PlanComparison, data: Dataset, keep: Uint8Array, plan: LockedPlan['plan']): ComparisonResult {
  const values = outcomeValues(outcome, data, keep, plan);
  const pick = (condition: string) => Float64Array.from(data.sessions.ids.flatMap((_, i) => (data.sessions.conditions[i] === condition && !Number.isNaN(values[i]!) ? [values[i]!] : [])));
  const a = pick(c.a);
  const b = pick(c.b);
  const test = plannedTest(c.test, c.direction, a, b);
  const meanA = a.length ? mean(a) : null;
  const meanB = b.length ? mean(b) : null;
  return {
    outcome,
    a: c.a,
    b: c.b,
    n_a: a.length,
    n_b: b.length,
    mean_a: meanA,
    mean_b: meanB,
    diff: meanA !== null && meanB !== null ? meanA - meanB : null,
    test,
    alpha: c.alpha,
    significant: test ? test.p < c.alpha : null,
  };
}

/**
 * This run's settings that differ from the plan's (the planned analysis itself always uses the plan's): the flags
 * of this analyze run and the judge settings of the scores it read (judgements.csv). One per differing setting.
 */
export function settingsDeviations(locked: LockedPlan, options: AnalysisOptions, judge: JudgeSettings | null = null): SectionDeviation[] {
  const a = locked.plan.analysis;
  const pairs: [string, unknown, unknown][] = [
    ['analysis.lambda', options.lambda, a.lambda],
    ['analysis.cost', options.cost, a.cost],
    ['analysis.bootstrap.replicates', options.bootstrapReplicates, a.bootstrap.replicates],
    ['analysis.bootstrap.seed', options.bootstrapSeed, a.bootstrap.seed],
    ['exclusions.pilot', !options.includePilot, locked.plan.exclusions.pilot],
  ];
  const out = pairs
    .filter(([, run, planned]) => run !== planned)
    .map(([field, run, planned]) => ({
      source: 'analysis' as const,
      kind: 'analysis_settings',
      file: locked.plan_file,
      field,
      message: `this analyze run used ${field} = ${String(run)}, the plan ${String(planned)} (the pre-registered analysis used the plan's; the exploratory part this run's)`,
      justification: null,
    }));
  if (judge) {
    const judged: [string, string[], string, boolean][] = [
      ['analysis.judge.model', judge.models, a.judge.model, judge.models.every((m) => sameModel(m, a.judge.model))],
      ['analysis.judge.samples', judge.samples.map(String), String(a.judge.samples), judge.samples.every((k) => k === a.judge.samples)],
      ['analysis.judge.rubric', judge.rubrics, a.judge.rubric, judge.rubrics.every((r) => r === a.judge.rubric)],
    ];
    for (const [field, seen, planned, same] of judged)
      if (!same)
        out.push({
          source: 'analysis',
          kind: 'analysis_settings',
          file: locked.plan_file,
          field,
          message: `the dataset's scores come from ${field} = ${seen.join(', ')} (judgements.csv), the plan ${planned}`,
          justification: null,
        });
  }
  return out;
}

export function preregisteredSection(input: {
  locked: LockedPlan;
  data: Dataset;
  columns: Map<string, ExclusionColumns>;
  recorded: RecordedDeviation[];
  options: AnalysisOptions;
  /** The judge settings of the dataset's scores (judgements.csv), null without judge samples. */
  judge?: JudgeSettings | null;
}): PreregisteredSection {
  const { locked, data } = input;
  const plan = locked.plan;
  const { keep, counts } = applyExclusions(plan.exclusions, data.sessions.ids, data.sessions.quality, input.columns);
  const primary = compare(plan.primary.outcome, plan.primary.comparison, data, keep, plan);
  const hypothesis = plan.hypotheses.find((h) => h.id === plan.primary.hypothesis)!;
  return {
    version: locked.version,
    locked_at: locked.locked_at,
    plan_hash: locked.plan_hash,
    study_hash: locked.study_hash,
    hypothesis,
    outcome: plan.primary.outcome,
    comparison: plan.primary.comparison,
    exclusions: counts,
    n_per_condition: {
      [primary.a]: { planned: plan.sample.n_per_condition, observed: primary.n_a },
      [primary.b]: { planned: plan.sample.n_per_condition, observed: primary.n_b },
    },
    primary,
    secondary: plan.secondary.map((s) => compare(s.outcome, s.comparison ?? plan.primary.comparison, data, keep, plan)),
    deviations: [
      ...input.recorded.map((d) => ({ source: 'platform' as const, kind: d.kind, file: d.file, field: d.field, message: d.message, justification: d.justification || null })),
      ...settingsDeviations(locked, input.options, input.judge ?? null),
    ],
    run_deviations: null,
  };
}
