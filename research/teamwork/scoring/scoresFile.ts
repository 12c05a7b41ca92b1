/** The shape of scores.json: per model, its overall, dimensions, failure modes, runs and tokens (docs/teamwork.md). */
import type { AgreementFigures } from './judgeAgreement';
import type { TaskTally } from './taskTallies';

export interface DimensionScore {
  n_tasks: number;
  n_gated: number;
  /** Runs that count (status ok) per arm over the gated tasks, beside the runs the gated tasks have in all. */
  n: { alone: number; calm: number; test: number; calm_total: number; test_total: number };
  alone: number | null;
  baseline: number | null;
  test: number | null;
  drop: number | null;
  ci95: [number, number] | null;
}

export interface ModelScores {
  overall: { score: number | null; ci95: [number, number] | null };
  /** Dimensions of the overall without a gated task (then score is null). */
  incomplete: string[];
  rank: number | null;
  solved_alone: string[];
  dimensions: Record<string, DimensionScore>;
  failure_modes: { missed_it: number; gave_in: number; other: number; failed_test_runs: number; test_runs: number };
  /** Test runs of gated deal tasks: how many reached the best joint deal, how many held firm without it. */
  deals: { test_runs: number; best: number; firm: number; best_rate: number | null; firm_rate: number | null };
  /** Runs counted and never scored: errors, refusals, and outcomes no one could read (`unscored`). */
  excluded_runs: { total: number; error: number; refused: number; unscored: number };
  /** Subject turns the judges labelled, and those no rater named a label for (the run went on with the task's default). */
  judged_turns: { turns: number; unlabelled: number; share: number | null };
  runs: { total: number; scored: number; missing: number | null; settings_unknown: number };
  tokens: { input: number; output: number; o200k_input: number; o200k_output: number; judge_input: number; judge_output: number; per_run: { input: number; output: number; judge_input: number; judge_output: number } };
  /** Dollars for the subject's tokens over all runs (null without a price for the model). */
  cost_usd: number | null;
  cost_usd_per_run: number | null;
}

export interface Scores {
  schema_version: 1;
  scale: '0-100';
  settings: { replicates: number; seed: number; gate: string; prices: boolean; overall_dimensions: string[]; beside: string[] };
  models: Record<string, ModelScores>;
  /** Complete models by overall score, best first (ties by name), then incomplete models by name. */
  ranking: string[];
  differences: Array<{ higher: string; lower: string; difference: number | null; ci95: [number, number] | null; p_higher: number | null }>;
  judge_agreement: { overall: AgreementFigures; dimensions: Record<string, AgreementFigures> };
  /** Missing or excluded runs, small n, mixed or unknown settings, raters that are one model… (also on stderr). */
  warnings: string[];
}
