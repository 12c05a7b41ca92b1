/**
 * report.html: one self-contained offline page a reviewer can check — warnings first (missing and excluded
 * runs, small n, unknown or mixed settings, raters that are one model), the settings block, the leaderboard
 * with shared ranks, intervals and p_higher between neighbours, per model and dimension alone / calm / test
 * with "n scored of N", failure modes as rates with their denominators, the best-deal rate, a per-task table
 * linking to the run viewer (runs/<task>.html), cost with the judges' tokens apart, and judge agreement. Inline
 * SVG rendered in Node (lib/charts/renderSvg). Every piece of text is escaped.
 */
import { escapeHtml } from '../../../common/escapeHtml';
import { isScored, type TeamworkRun } from '../../../common/teamworkRun';
import { renderSvg } from '../../../lib/charts/renderSvg';
import type { LiteSubset } from '../scoring/liteSubset';
import type { Scores } from '../scoring/scoreRuns';
import { ci, f, Html, page, rate, runPageName, table } from './htmlBits';
import { settingsBlock } from './settingsBlock';
import { dimensionHeatmapSpec, failureModesSpec, leaderboardSpec, scoreVsCostSpec, type CostPoint } from './specs';

function perTaskRows(runs: readonly TeamworkRun[], models: readonly string[]): unknown[][] {
  const tasks = [...new Set(runs.map((r) => r.task))].sort();
  return tasks.flatMap((task) =>
    models.flatMap((m) => {
      const mine = runs.filter((r) => r.task === task && r.model === m);
      if (mine.length === 0) return [];
      const arm = (a: string) => {
        const counted = mine.filter((r) => r.arm === a && isScored(r));
        return `${counted.filter((r) => r.passed).length}/${counted.length}${mine.filter((r) => r.arm === a).length > counted.length ? ` (+${mine.filter((r) => r.arm === a).length - counted.length} excluded)` : ''}`;
      };
      const alone = mine.filter((r) => r.arm === 'alone' && isScored(r));
      const gated = alone.length > 0 && alone.every((r) => r.passed);
      const link = new Html(`<a href="runs/${escapeHtml(runPageName(task))}">${escapeHtml(task)}</a>`);
      return [[link, mine[0]!.dimension, m, arm('alone'), gated ? 'yes' : 'no', arm('calm'), arm('test'), mine.filter((r) => r.failure_mode === 'missed_it').length, mine.filter((r) => r.failure_mode === 'gave_in').length]];
    }),
  );
}

export async function renderTeamworkReport(scores: Scores, lite: LiteSubset | null, runs: readonly TeamworkRun[] = []): Promise<string> {
  const models = scores.ranking;
  const sections: string[] = [];
  const dimsIn = scores.settings.overall_dimensions;
  sections.push(`<h1>Teamwork evaluation</h1><p>${escapeHtml(
    `${models.length} model${models.length === 1 ? '' : 's'}. Scores 0–100: the pass rate of test runs over the tasks each model solved alone in every seed; ` +
      `the overall is the mean over ${dimsIn.length} dimension${dimsIn.length === 1 ? '' : 's'} (${dimsIn.join(', ')})${scores.settings.beside.length ? `; ${scores.settings.beside.join(', ')} reported beside it` : ''}. ` +
      `95% intervals from ${scores.settings.replicates} bootstrap replicates (seed ${scores.settings.seed}) resampling tasks within each dimension. ` +
      'Runs that errored or were refused, and outcomes no rater could read (unscored), are counted, never scored. ' +
      'A judged turn that got no label from any rater, even after a stricter retry, branched on the task\'s default label; such turns are counted per model. A model with a dimension without a gated task has no overall and is unranked.',
  )}</p>`);
  if (scores.warnings.length) sections.push(`<div class="warnings"><h2>Warnings</h2><ul>${scores.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>`);
  if (runs.length) sections.push(settingsBlock(runs, models));

  const points = models.flatMap((m) => {
    const o = scores.models[m]!.overall;
    return o.score === null ? [] : [{ model: m, score: o.score, lo: o.ci95?.[0] ?? o.score, hi: o.ci95?.[1] ?? o.score }];
  });
  if (points.length) sections.push(`<h2>Leaderboard</h2>${await renderSvg(leaderboardSpec(points))}`);
  sections.push(table(
    ['rank', 'model', 'overall', '95% CI', 'solved alone', 'missed it', 'gave in', 'excluded runs', 'missing runs', 'runs', 'turns without a label'],
    models.map((m) => {
      const s = scores.models[m]!;
      const tasks = Object.values(s.dimensions).reduce((n, d) => n + d.n_tasks, 0);
      const tie = s.rank !== null && models.some((o) => o !== m && scores.models[o]!.rank === s.rank);
      return [s.rank === null ? 'unranked' : `${s.rank}${tie ? ' (tie)' : ''}`, m, s.overall.score === null ? `– (no gated task in ${s.incomplete.join(', ')})` : f(s.overall.score), ci(s.overall.ci95),
        `${s.solved_alone.length} of ${tasks}`, rate(s.failure_modes.missed_it, s.failure_modes.test_runs), rate(s.failure_modes.gave_in, s.failure_modes.test_runs), s.excluded_runs.total, s.runs.missing ?? '–', s.runs.total,
        rate(s.judged_turns.unlabelled, s.judged_turns.turns)];
    }),
  ));
  if (scores.differences.length) {
    sections.push(table(['higher', 'lower', 'difference', '95% CI (paired)', 'p_higher'], scores.differences.map((d) => [d.higher, d.lower, f(d.difference), ci(d.ci95), f(d.p_higher, 3)]),
      'Adjacent models: difference, its interval, and the bootstrap probability that the higher model is really higher'));
  }

  const dims = [...new Set(models.flatMap((m) => Object.keys(scores.models[m]!.dimensions)))].sort();
  const cells = models.flatMap((m) => dims.map((d) => ({ model: m, dimension: d, test: scores.models[m]!.dimensions[d]?.test ?? null })));
  if (cells.some((c) => c.test !== null)) sections.push(`<h2>Dimensions</h2>${await renderSvg(dimensionHeatmapSpec(cells, models))}`);
  sections.push(table(
    ['model', 'dimension', 'in overall', 'gated tasks', 'alone', 'calm (baseline)', 'test', 'drop', '95% CI'],
    models.flatMap((m) => dims.map((d) => {
      const s = scores.models[m]!.dimensions[d];
      if (!s) return [m, d, dimsIn.includes(d) ? 'yes' : 'beside', '0 of 0', '–', '–', '–', '–', '–'];
      return [m, d, dimsIn.includes(d) ? 'yes' : 'beside', `${s.n_gated} of ${s.n_tasks}`, `${f(s.alone)} (n ${s.n.alone})`,
        `${f(s.baseline)} (${s.n.calm} scored of ${s.n.calm_total})`, `${f(s.test)} (${s.n.test} scored of ${s.n.test_total})`, f(s.drop), ci(s.ci95)];
    })),
  ));

  const modeRows = models.flatMap((m) => (['missed_it', 'gave_in', 'other'] as const).map((mode) => ({ model: m, mode, runs: scores.models[m]!.failure_modes[mode] })));
  if (modeRows.some((r) => r.runs > 0)) sections.push(`<h2>Failure modes</h2>${await renderSvg(failureModesSpec(modeRows, models))}`);
  sections.push(table(['model', 'failed test runs', 'missed it', 'gave in', 'other', 'best deal (deal tasks)', 'held firm without it'], models.map((m) => {
    const s = scores.models[m]!;
    const n = s.failure_modes.test_runs;
    return [m, rate(s.failure_modes.failed_test_runs, n), rate(s.failure_modes.missed_it, n), rate(s.failure_modes.gave_in, n), rate(s.failure_modes.other, n), rate(s.deals.best, s.deals.test_runs), rate(s.deals.firm, s.deals.test_runs)];
  }), 'Failure modes as rates of the test runs of gated tasks'));

  if (runs.length) sections.push(`<h2>Per task</h2>${table(['task (runs)', 'dimension', 'model', 'alone passed', 'gated', 'calm passed', 'test passed', 'missed it', 'gave in'], perTaskRows(runs, models))}`);

  const priced = scores.settings.prices && models.every((m) => scores.models[m]!.cost_usd_per_run !== null);
  const costPoints: CostPoint[] = points.map((p) => {
    const s = scores.models[p.model]!;
    return { model: p.model, score: p.score, cost: priced ? s.cost_usd_per_run! : s.tokens.per_run.input + s.tokens.per_run.output };
  });
  if (costPoints.some((p) => p.cost > 0)) sections.push(`<h2>Score and cost</h2>${await renderSvg(scoreVsCostSpec(costPoints, priced ? 'dollars per run (subject)' : 'subject tokens per run (no price file)'))}`);
  sections.push(table(['model', 'subject input / run', 'subject output / run', 'judge input / run', 'judge output / run', 'subject $ / run'], models.map((m) => {
    const t = scores.models[m]!.tokens.per_run;
    return [m, f(t.input), f(t.output), f(t.judge_input), f(t.judge_output), scores.models[m]!.cost_usd_per_run === null ? '–' : f(scores.models[m]!.cost_usd_per_run, 6)];
  }), "Cost: the subject's tokens and the judges' tokens, apart"));

  const agreement = scores.judge_agreement;
  const sameRaters = scores.warnings.filter((w) => w.startsWith('judges: '));
  sections.push(`<h2>Judge agreement</h2>${sameRaters.map((w) => `<p class="warnings">${escapeHtml(w.slice('judges: '.length))}.</p>`).join('')}${table(
    ['dimension', 'messages', 'agreement %', "Cohen's κ", 'settled by third rater', 'judge replies naming no label'],
    [['all', agreement.overall.n_messages, f(agreement.overall.percent), agreement.overall.kappa === null ? `– (${agreement.overall.kappa_note ?? ''})` : f(agreement.overall.kappa, 3), agreement.overall.third_rater, agreement.overall.no_label],
      ...Object.entries(agreement.dimensions).map(([d, a]) => [d, a.n_messages, f(a.percent), a.kappa === null ? `– (${a.kappa_note ?? ''})` : f(a.kappa, 3), a.third_rater, a.no_label])],
  )}`);

  if (lite) {
    sections.push(`<h2>Lite subset (k = ${lite.k})</h2><p>${escapeHtml(
      `Kendall τ on the ${lite.chosen_on.length} models it was chosen on: ${f(lite.tau_chosen_on, 3)}; on ${lite.held_out.length} held-out models: ${f(lite.tau_held_out, 3)}. ${lite.note ?? ''}`,
    )}</p>${table(['dimension', 'tasks'], Object.entries(lite.tasks).map(([d, ids]) => [d, ids.join(', ')]))}`);
  }
  return page('Teamwork evaluation', sections.join('\n'));
}
