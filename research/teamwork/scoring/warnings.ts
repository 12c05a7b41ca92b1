/**
 * What a reader of scores.json must be told before trusting it (also printed on stderr, and shown at the top
 * of report.html): missing and excluded runs, models without an overall, dimensions resting on few tasks,
 * runs whose settings are unknown, raters that are one model, settings mixes let through, and an overall
 * that does not cover CIB's seven dimensions.
 */
import { CIB_DIMENSIONS } from '../../../common/teamworkTask';
import type { TeamworkRun } from '../../../common/teamworkRun';
import type { Scores } from './scoresFile';

/**
 * More than this share of a model's judged turns without a label from any rater is a warning: each such turn branched on
 * the task's default label, so the teammates may not have answered what the model really said.
 */
export const UNLABELLED_WARN_SHARE = 0.02;

/** Fewer gated tasks than this in a dimension is "small n". */
export const SMALL_N_TASKS = 3;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function scoreWarnings(scores: Scores, runs: readonly TeamworkRun[], mixed: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of scores.ranking) {
    const s = scores.models[m]!;
    if (s.runs.missing) out.push(`${m}: ${plural(s.runs.missing, 'run')} missing from the task × arm × seed grid`);
    const ex = s.excluded_runs;
    if (ex.total) out.push(`${m}: ${plural(ex.total, 'run')} excluded (error ${ex.error}, refused ${ex.refused}${ex.unscored ? `, unscored ${ex.unscored}` : ''})`);
    const j = s.judged_turns;
    if (j.share !== null && j.share > UNLABELLED_WARN_SHARE) {
      out.push(`${m}: ${j.unlabelled} of ${j.turns} judged turns (${(100 * j.share).toFixed(1)} %) got no label from any rater, even after a stricter retry; they branched on the task's default label`);
    }
    if (s.incomplete.length) out.push(`${m}: no overall score, unranked: no gated task in ${s.incomplete.join(', ')}`);
    const small = scores.settings.overall_dimensions.filter((d) => (s.dimensions[d]?.n_gated ?? 0) > 0 && s.dimensions[d]!.n_gated < SMALL_N_TASKS);
    if (small.length) out.push(`${m}: small n — ${small.map((d) => `${d} rests on ${plural(s.dimensions[d]!.n_gated, 'gated task')}`).join(', ')}`);
    if (s.runs.settings_unknown) out.push(`${m}: ${plural(s.runs.settings_unknown, 'run')} without recorded settings (settings unknown)`);
  }
  const same = [...new Set(runs.filter((r) => r.settings?.same_raters).map((r) => r.settings!.referee))];
  for (const j of same) out.push(`judges: the referee and the second rater are the same model (${j}): their agreement validates nothing`);
  for (const m of mixed) out.push(`mixed settings (let through with --allow-mixed): ${m}`);
  const covered = CIB_DIMENSIONS.filter((d) => scores.settings.overall_dimensions.includes(d));
  if (covered.length < CIB_DIMENSIONS.length) {
    out.push(`the overall averages ${covered.length} of CIB's ${CIB_DIMENSIONS.length} dimensions (${scores.settings.overall_dimensions.join(', ') || 'none'}): it is not CIB's overall`);
  }
  return out;
}
