/**
 * report.html: one self-contained offline page — leaderboard with intervals, dimension heatmap, score
 * against cost with the Pareto frontier (log cost), failure-mode bars — as inline SVG rendered in Node
 * (lib/charts/renderSvg), plus the tables behind them. Every piece of text is escaped; no model
 * text is shown at all (runs.jsonl holds it).
 */
import { escapeHtml } from '../../../common/escapeHtml';
import { renderSvg } from '../../../lib/charts/renderSvg';
import type { LiteSubset } from '../scoring/liteSubset';
import type { Scores } from '../scoring/scoreRuns';
import { dimensionHeatmapSpec, failureModesSpec, leaderboardSpec, scoreVsCostSpec, type CostPoint } from './specs';

const f = (v: number | null | undefined, digits = 1): string => (v === null || v === undefined ? '–' : v.toFixed(digits));
const ci = (c: [number, number] | null | undefined): string => (c ? `[${f(c[0])}, ${f(c[1])}]` : '–');

function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>, caption?: string): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c ?? '')}</td>`).join('')}</tr>`).join('\n');
  return `<table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export async function renderTeamworkReport(scores: Scores, lite: LiteSubset | null): Promise<string> {
  const models = scores.ranking;
  const sections: string[] = [];
  sections.push(`<h1>Teamwork evaluation</h1><p>${escapeHtml(
    `${models.length} model${models.length === 1 ? '' : 's'}. Scores 0–100: mean test-run value over the tasks each model solved alone in every seed; ` +
      `95% intervals from ${scores.settings.replicates} bootstrap replicates (seed ${scores.settings.seed}) resampling tasks within each dimension. ` +
      'Runs that errored or were refused are counted, never scored.',
  )}</p>`);

  const points = models.flatMap((m) => {
    const o = scores.models[m]!.overall;
    return o.score === null ? [] : [{ model: m, score: o.score, lo: o.ci95?.[0] ?? o.score, hi: o.ci95?.[1] ?? o.score }];
  });
  if (points.length) sections.push(`<h2>Leaderboard</h2>${await renderSvg(leaderboardSpec(points))}`);
  sections.push(table(
    ['rank', 'model', 'overall', '95% CI', 'solved alone', 'missed it', 'gave in', 'excluded', 'runs'],
    models.map((m, i) => {
      const s = scores.models[m]!;
      return [i + 1, m, f(s.overall.score), ci(s.overall.ci95), s.solved_alone.length, s.failure_modes.missed_it, s.failure_modes.gave_in, s.excluded_runs.total, s.runs.total];
    }),
  ));
  if (scores.differences.length) {
    sections.push(table(['higher', 'lower', 'difference', '95% CI (paired)'], scores.differences.map((d) => [d.higher, d.lower, f(d.difference), ci(d.ci95)]), 'Differences between adjacent models'));
  }

  const dims = [...new Set(models.flatMap((m) => Object.keys(scores.models[m]!.dimensions)))].sort();
  const cells = models.flatMap((m) => dims.map((d) => ({ model: m, dimension: d, test: scores.models[m]!.dimensions[d]?.test ?? null })));
  if (cells.some((c) => c.test !== null)) sections.push(`<h2>Dimensions</h2>${await renderSvg(dimensionHeatmapSpec(cells, models))}`);
  sections.push(table(
    ['model', 'dimension', 'tasks', 'gated', 'baseline (calm)', 'test', 'drop', '95% CI'],
    models.flatMap((m) => dims.map((d) => {
      const s = scores.models[m]!.dimensions[d];
      return [m, d, s?.n_tasks ?? 0, s?.n_gated ?? 0, f(s?.baseline), f(s?.test), f(s?.drop), ci(s?.ci95)];
    })),
  ));

  const priced = scores.settings.prices && models.every((m) => scores.models[m]!.cost_usd_per_run !== null);
  const costPoints: CostPoint[] = points.map((p) => {
    const s = scores.models[p.model]!;
    return { model: p.model, score: p.score, cost: priced ? s.cost_usd_per_run! : s.tokens.per_run.input + s.tokens.per_run.output };
  });
  if (costPoints.some((p) => p.cost > 0)) sections.push(`<h2>Score and cost</h2>${await renderSvg(scoreVsCostSpec(costPoints, priced ? 'dollars per run' : 'tokens per run (no price file)'))}`);

  const modeRows = models.flatMap((m) => (['missed_it', 'gave_in', 'other'] as const).map((mode) => ({ model: m, mode, runs: scores.models[m]!.failure_modes[mode] })));
  if (modeRows.some((r) => r.runs > 0)) sections.push(`<h2>Failure modes</h2>${await renderSvg(failureModesSpec(modeRows, models))}`);

  const agreement = scores.judge_agreement;
  sections.push(`<h2>Judge agreement</h2>${table(
    ['dimension', 'messages', 'agreement %', "Cohen's κ", 'settled by third rater'],
    [['all', agreement.overall.n_messages, f(agreement.overall.percent), agreement.overall.kappa === null ? `– (${agreement.overall.kappa_note ?? ''})` : f(agreement.overall.kappa, 3), agreement.overall.third_rater],
      ...Object.entries(agreement.dimensions).map(([d, a]) => [d, a.n_messages, f(a.percent), a.kappa === null ? `– (${a.kappa_note ?? ''})` : f(a.kappa, 3), a.third_rater])],
  )}`);

  if (lite) {
    sections.push(`<h2>Lite subset (k = ${lite.k})</h2><p>${escapeHtml(
      `Kendall τ on the ${lite.chosen_on.length} models it was chosen on: ${f(lite.tau_chosen_on, 3)}; on ${lite.held_out.length} held-out models: ${f(lite.tau_held_out, 3)}. ${lite.note ?? ''}`,
    )}</p>${table(['dimension', 'tasks'], Object.entries(lite.tasks).map(([d, ids]) => [d, ids.join(', ')]))}`);
  }

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Teamwork evaluation</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
caption{text-align:left;font-weight:600;margin-bottom:4px}svg{max-width:100%;height:auto}
</style></head><body>
${sections.join('\n')}
</body></html>
`;
}
