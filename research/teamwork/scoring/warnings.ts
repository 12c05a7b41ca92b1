/**
 * What a reader of scores.json must be told before trusting it (also printed on stderr, and shown at the top
 * of report.html): missing and excluded runs, models without an overall, dimensions resting on few tasks,
 * runs whose settings are unknown, raters that are one model, settings mixes let through, and an overall
 * that does not cover CIB's seven dimensions.
 */
import { CIB_DIMENSIONS } from '../../../common/teamworkTask';
import type { TeamworkRun } from '../../../common/teamworkRun';
import type { Scores } from './scoresFile';

/** Fewer gated tasks than this in a dimension is "small n". */
export const SMALL_N_TASKS = 3;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function scoreWarnings(scores: Scores, runs: readonly TeamworkRun[], mixed: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of scores.ranking) {
    const s = scores.models[m]!;
    if (s.runs.missing) out.push(`${m}: ${plural(s.runs.missing, 'run')} missing from the task × arm × seed grid`);
    if (s.excluded_runs.total) out.push(`${m}: ${plural(s.excluded_runs.total, 'run')} excluded (error ${s.excluded_runs.error}, refused ${s.excluded_runs.refused})`);
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
