/**
 * leaderboard.csv: one row per model, in ranking order (columns documented in docs/teamwork.md). `rank` is
 * shared by ties and empty for a model without an overall; the columns after `cost_usd_per_run` were added
 * later (extend, never break).
 */
import { stringify } from 'csv-stringify/sync';
import { TEAMWORK_DIMENSIONS } from '../../../common/teamworkTask';
import type { Scores } from '../scoring/scoreRuns';

const round = (v: number | null | undefined, digits = 2): string => (v === null || v === undefined ? '' : v.toFixed(digits));

export function leaderboardCsv(scores: Scores): string {
  const present = new Set(Object.values(scores.models).flatMap((m) => Object.keys(m.dimensions)));
  const dims = [...TEAMWORK_DIMENSIONS.filter((d) => present.has(d)), ...[...present].filter((d) => !(TEAMWORK_DIMENSIONS as readonly string[]).includes(d)).sort()];
  const header = ['rank', 'model', 'overall', 'ci95_low', 'ci95_high', 'n_solved_alone', ...dims.flatMap((d) => [`${d}_test`, `${d}_drop`]), 'missed_it', 'gave_in', 'excluded_runs', 'runs', 'input_tokens_per_run', 'output_tokens_per_run', 'cost_usd_per_run',
    'incomplete', 'runs_missing', 'p_higher_than_next', 'best_deal_rate', 'judge_input_tokens_per_run', 'judge_output_tokens_per_run',
    'unscored_runs', 'judged_turns', 'unlabelled_turns'];
  const rows = scores.ranking.map((model) => {
    const m = scores.models[model]!;
    const next = scores.differences.find((d) => d.higher === model);
    return [
      m.rank ?? '', model, round(m.overall.score), round(m.overall.ci95?.[0]), round(m.overall.ci95?.[1]), m.solved_alone.length,
      ...dims.flatMap((d) => [round(m.dimensions[d]?.test), round(m.dimensions[d]?.drop)]),
      m.failure_modes.missed_it, m.failure_modes.gave_in, m.excluded_runs.total, m.runs.total,
      round(m.tokens.per_run.input, 1), round(m.tokens.per_run.output, 1), round(m.cost_usd_per_run, 6),
      m.incomplete.join(';'), m.runs.missing ?? '', round(next?.p_higher, 3), round(m.deals.best_rate, 3), round(m.tokens.per_run.judge_input, 1), round(m.tokens.per_run.judge_output, 1),
      m.excluded_runs.unscored, m.judged_turns.turns, m.judged_turns.unlabelled,
    ];
  });
  return stringify([header, ...rows]);
}
