import type { Dataset } from './input/dataset';
import { COST_DEFINITIONS, interactionCost, type CostDefinition } from './productivity/costDefinitions';
import { scoredByTask } from './productivity/taskGroups';
import { quadrantOrNull, withinTaskProductivity, type Productivity, type Quadrant } from './productivity/withinTaskZ';
import { costSpread, type CostSpread } from './productivity/costSpread';
import { pairwiseSpearman, partialCostLikert, qualityCostSpearman, type CountedCorrelation } from './productivity/taskCorrelations';
import { floatKey, rankingAgreement } from './productivity/rankingAgreement';
import { pzQuartiles, type Quartiles } from './productivity/quartiles';
import { sessionFeatures, type SessionFeatures } from './features/sessionFeatures';
import { compareQuartiles, type FeatureComparison } from './features/quartileComparison';
import type { Correlation } from '../../lib/stats/spearman';
import { bootstrapSection, prefetchBootstrapSection, type BootstrapSection } from './bootstrapSection';
import { probingPzByTask } from './features/probingPz';
import { conditionSection, type ConditionSection } from './conditions/conditionSection';
import { datasetWarnings } from './warnings';
import type { GroupSection } from './groups/groupSection';

export const SENSITIVITY_LAMBDAS = [0.5, 0.75, 1, 1.5, 2] as const;

export interface AnalysisOptions {
  lambda: number;
  cost: CostDefinition;
  bootstrapReplicates: number;
  bootstrapSeed: number;
  /** Keep sessions marked is_pilot = true (left out by default, as in exports). */
  includePilot: boolean;
  /** Keep visits that never answered the consent (left out by default, as in exports). */
  includeUnconsented?: boolean;
  /** Keep sessions the simulator played (sessions.csv simulated = true; left out by default). */
  includeSimulated?: boolean;
}

export const DEFAULT_OPTIONS: AnalysisOptions = { lambda: 0.5, cost: 'weighted', bootstrapReplicates: 1000, bootstrapSeed: 1, includePilot: false };

export interface SessionResult {
  task: string;
  quality: number;
  cost: number;
  /** Null when the session is its task's only scored session (no SD, so no z). */
  z_quality: number | null;
  z_cost: number | null;
  pz: number | null;
  quadrant: Quadrant | null;
}

export interface TaskResult {
  n: number;
  spearman_qc: Correlation | null;
  cost_spread: CostSpread[];
  partial: Record<string, CountedCorrelation | null>;
  /** Spearman of the agent's probing rate with Pz among the task's scored sessions (annotations needed). */
  probing_pz: CountedCorrelation | null;
}

/** summary.json: the fixture's keys (contract) plus the extended sections. */
export interface Summary {
  n_sessions: number;
  n_scored: number;
  n_unscored: number;
  /** Pilot sessions (is_pilot = true) left out; 0 with --include-pilot or when the column is absent. */
  n_pilot_excluded: number;
  /** Visits that never answered the consent left out (empty consented_at, not declined); 0 with --include-unconsented. */
  n_unconsented_excluded: number;
  /** Simulated sessions (simulated = true) left out; present only when sessions.csv has the column. */
  n_simulated_excluded?: number;
  lambda: number;
  cost_definition: CostDefinition;
  counts_source: Dataset['countsSource'];
  sessions: Record<string, SessionResult>;
  tasks: Record<string, TaskResult>;
  sensitivity_lambda: Record<string, number | null>;
  cost_definitions: Record<string, number | null>;
  quartiles: { top: string[]; bottom: string[] };
  features: Record<string, FeatureComparison>;
  feature_counts: Record<string, FeatureComparison>;
  features_opening: Record<string, FeatureComparison>;
  likert_correlations: Record<string, CountedCorrelation | null>;
  bootstrap: BootstrapSection;
  /** Condition comparison per task and pooled (conditions/conditionSection.ts). */
  conditions: ConditionSection;
  /** Problems with the data that did not stop the analysis (also printed on stderr by the CLI). */
  warnings: string[];
  /** Group conditions analysed with the group as the unit (groups/groupSection.ts); absent without them. */
  groups?: GroupSection;
}

/** Everything the report and productivity.csv need besides the summary. */
export interface Analysis {
  summary: Summary;
  cost: Float64Array;
  productivity: Productivity;
  quartiles: Quartiles;
  features: SessionFeatures;
}

/** Runs the whole productivity analysis on a loaded dataset. Pure: no I/O. */
export function analyzeDataset(data: Dataset, options: AnalysisOptions = DEFAULT_OPTIONS): Analysis {
  const s = data.sessions;
  const n = s.ids.length;
  const groups = scoredByTask(s.tasks, s.quality);
  const scored = Int32Array.from([...groups.values()].flatMap((g) => Array.from(g)).sort((a, b) => a - b));
  const cost = interactionCost(options.cost, s.counts, options.lambda);
  const productivity = withinTaskProductivity(groups, s.quality, cost);

  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  const sessions: Record<string, SessionResult> = {};
  for (const i of scored) {
    sessions[s.ids[i]!] = {
      task: s.tasks[i]!,
      quality: s.quality[i]!,
      cost: cost[i]!,
      z_quality: orNull(productivity.zQuality[i]!),
      z_cost: orNull(productivity.zCost[i]!),
      pz: orNull(productivity.pz[i]!),
      quadrant: quadrantOrNull(productivity.zQuality[i]!, productivity.zCost[i]!),
    };
  }
  // sessions with a Pz: scored, in a task with at least two scored sessions
  const ranked = scored.filter((i) => !Number.isNaN(productivity.pz[i]!));

  const features = sessionFeatures(data.annotations, n);
  // the largest bootstrap starts on the worker threads now and is joined by bootstrapSection below
  prefetchBootstrapSection(groups, s.quality, cost, features, data.annotations !== null, options);
  const tasks: Record<string, TaskResult> = {};
  const probing = probingPzByTask(features, groups, productivity.pz, data.annotations !== null);
  for (const [task, idx] of groups) {
    const partial: Record<string, CountedCorrelation | null> = {};
    s.likertItems.forEach((item, k) => (partial[item] = partialCostLikert(idx, s.quality, cost, s.likert[k]!)));
    tasks[task] = {
      n: idx.length,
      spearman_qc: qualityCostSpearman(idx, s.quality, cost),
      cost_spread: costSpread(idx, s.quality, cost),
      partial,
      probing_pz: probing.get(task) ?? null,
    };
  }

  const pzUnder = (def: CostDefinition, lambda: number) =>
    withinTaskProductivity(groups, s.quality, interactionCost(def, s.counts, lambda)).pz;
  const sensitivity_lambda = rankingAgreement(new Map(SENSITIVITY_LAMBDAS.map((l) => [floatKey(l), pzUnder('weighted', l)])), ranked);
  const cost_definitions = rankingAgreement(new Map(COST_DEFINITIONS.map((d) => [d, pzUnder(d, options.lambda)])), ranked);

  const quartiles = pzQuartiles(ranked, productivity.pz, s.ids);
  const withAnnotations = data.annotations !== null;
  const likert_correlations: Record<string, CountedCorrelation | null> = {};
  const items = s.likertItems.map((item, k) => ({ item, k })).sort((a, b) => (a.item < b.item ? -1 : 1));
  for (let x = 0; x < items.length; x++) {
    for (let y = x + 1; y < items.length; y++) {
      likert_correlations[`${items[x]!.item}|${items[y]!.item}`] = pairwiseSpearman(s.likert[items[x]!.k]!, s.likert[items[y]!.k]!);
    }
  }

  const summary: Summary = {
    n_sessions: n,
    n_scored: scored.length,
    n_unscored: n - scored.length,
    n_pilot_excluded: s.excludedPilotIds.length,
    n_unconsented_excluded: s.excludedUnconsentedIds.length,
    ...(s.simulatedColumn ? { n_simulated_excluded: s.excludedSimulatedIds.length } : {}),
    lambda: options.lambda,
    cost_definition: options.cost,
    counts_source: data.countsSource,
    sessions,
    tasks,
    sensitivity_lambda,
    cost_definitions,
    quartiles: { top: Array.from(quartiles.top, (i) => s.ids[i]!).sort(), bottom: Array.from(quartiles.bottom, (i) => s.ids[i]!).sort() },
    features: withAnnotations ? compareQuartiles(features, quartiles, 'rate') : {},
    feature_counts: withAnnotations ? compareQuartiles(features, quartiles, 'count') : {},
    features_opening: withAnnotations ? compareQuartiles(features, quartiles, 'opening_rate') : {},
    likert_correlations,
    bootstrap: bootstrapSection(groups, s.quality, cost, features, quartiles, withAnnotations, options),
    conditions: conditionSection(
      {
        sessions: s,
        scored: (i) => !Number.isNaN(s.quality[i]!),
        cost,
        pz: productivity.pz,
        quadrant: (i) => quadrantOrNull(productivity.zQuality[i]!, productivity.zCost[i]!),
      },
      { replicates: options.bootstrapReplicates, seed: options.bootstrapSeed },
    ),
    warnings: datasetWarnings(groups, s.quality, n, withAnnotations ? features : null),
  };
  // a study without conditions is not a problem; sessions missing a condition in a study with them is
  if (summary.conditions.names.length > 0) summary.warnings.push(...summary.conditions.notes.map((note) => `condition comparison: ${note}`));
  return { summary, cost, productivity, quartiles, features };
}
