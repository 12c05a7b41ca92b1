import type { Dataset } from '../input/dataset';
import type { Analysis } from '../summary';
import { escapeHtml } from './escapeHtml';
import { renderSvg } from './renderSvg';
import { fmt, htmlTable } from './tables';
import { agreementHeatmapSpec, costByQualitySpec, quadrantScatterSpec, specsFromSummary } from './specs';
import { quadrantPoints } from './specs/fromSummary';

/** Plots draw at most this many sessions (every k-th, deterministic) so the report stays small. */
const MAX_PLOTTED = 4000;

/** report.html: one self-contained offline page with inline SVG plots and the summary tables. */
export async function renderReport(data: Dataset, analysis: Analysis): Promise<string> {
  const s = analysis.summary;
  const entries = Object.entries(s.sessions);
  const step = Math.max(1, Math.ceil(entries.length / MAX_PLOTTED));
  const plotted = entries.filter((_, i) => i % step === 0);
  const sections: string[] = [];

  sections.push(`<h1>Collaborative productivity report</h1>
<p>${escapeHtml(`${s.n_sessions} sessions, ${s.n_scored} with a quality score (${s.n_unscored} without, left out of z, Pz and everything built on them). ` +
    `Cost: ${s.cost_definition}${s.cost_definition === 'weighted' ? ` (C = user_tokens + ${s.lambda} · agent_tokens)` : ''}; counts from ${s.counts_source}. ` +
    `Pz = z(Q) − z(C), z within task with the sample SD.`)}</p>
${step > 1 ? `<p class="note">${escapeHtml(`Plots show every ${step}th session (${plotted.length} of ${entries.length}); tables use all.`)}</p>` : ''}`);

  if (entries.length > 0) {
    sections.push(`<h2>Quadrants</h2>${await renderSvg(quadrantScatterSpec(quadrantPoints(plotted)))}`);
    const quadrantCounts = new Map<string, Map<string, number>>();
    for (const [, r] of entries) {
      if (r.quadrant === null) continue;
      const m = quadrantCounts.get(r.task) ?? new Map<string, number>();
      m.set(r.quadrant, (m.get(r.quadrant) ?? 0) + 1);
      quadrantCounts.set(r.task, m);
    }
    const quads = ['productive_success', 'costly_success', 'cheap_failure', 'unproductive_failure'];
    const total = (q: string) => [...quadrantCounts.values()].reduce((n, m) => n + (m.get(q) ?? 0), 0);
    const quadrantRows = [...quadrantCounts].sort().map(([t, m]) => [t, ...quads.map((q) => m.get(q) ?? 0)]);
    sections.push(htmlTable(['task', ...quads], [['all tasks', ...quads.map(total)], ...quadrantRows], 'Sessions per quadrant'));
    sections.push(`<h2>Cost within quality levels</h2>${await renderSvg(costByQualitySpec(plotted.map(([, r]) => ({ task: r.task, quality: r.quality, cost: r.cost }))))}`);
    const spreadRows = Object.entries(s.tasks).flatMap(([t, r]) => r.cost_spread.map((c) => [t, c.quality, c.n, fmt(c.min, 'cost'), fmt(c.max, 'cost'), c.ratio === null ? '–' : `${c.ratio.toFixed(1)}×`]));
    sections.push(htmlTable(['task', 'quality', 'n', 'min C', 'max C', 'max/min'], spreadRows, 'Cost spread within each quality level'));
  }

  const taskRows = Object.entries(s.tasks).map(([t, r]) => {
    const ci = s.bootstrap.spearman_qc[t];
    return [t, r.n, fmt(r.spearman_qc?.rho), fmt(r.spearman_qc?.p, 'p'), ci ? `[${fmt(ci.low)}, ${fmt(ci.high)}]` : '–', fmt(r.probing_pz?.rho), fmt(r.probing_pz?.p, 'p')];
  });
  if (taskRows.length) {
    sections.push(`<h2>Per task</h2>${htmlTable(['task', 'n', 'ρ(Q,C)', 'p', `bootstrap 95% CI (${s.bootstrap.replicates}×, seed ${s.bootstrap.seed})`, 'ρ(agent probing, Pz)', 'p'], taskRows)}`);
    const partialRows = Object.entries(s.tasks).flatMap(([t, r]) => Object.entries(r.partial).map(([item, c]) => [t, item, c?.n, fmt(c?.rho), fmt(c?.p, 'p')]));
    if (partialRows.length) sections.push(htmlTable(['task', 'Likert item S', 'n', 'partial ρ(C,S | Q)', 'p'], partialRows, 'Partial Spearman of cost and each Likert item given quality'));
  }

  if (entries.length > 1) {
    sections.push(`<h2>Robustness</h2>${await renderSvg(agreementHeatmapSpec('Pz ranking agreement across λ (Spearman ρ)', s.sensitivity_lambda, 'λ'))}`);
    sections.push(await renderSvg(agreementHeatmapSpec('Pz ranking agreement across cost definitions (Spearman ρ)', s.cost_definitions, 'cost')));
  }

  if (data.annotations && Object.keys(s.features).length) {
    const probingSpec = specsFromSummary(s).probingByQuartile;
    if (probingSpec) sections.push(`<h2>Dialogue features by Pz quartile</h2>${await renderSvg(probingSpec)}`);
    const featureRows = Object.entries(s.features)
      .sort((a, b) => (a[1].p ?? 1) - (b[1].p ?? 1))
      .map(([k, f]) => {
        const ci = s.bootstrap.quartile_difference[k];
        return [k, fmt(f.top_mean), fmt(f.bottom_mean), fmt(f.cohen_d), fmt(f.p, 'p'), ci ? `[${fmt(ci.low)}, ${fmt(ci.high)}]` : ''];
      });
    sections.push(htmlTable(['feature (rate)', `top ${s.quartiles.top.length}`, `bottom ${s.quartiles.bottom.length}`, "Cohen's d", 'Mann-Whitney p', 'diff 95% CI'], featureRows, 'Per-speaker label rates, top vs bottom Pz quartile (sorted by p)'));
  }

  const likertRows = Object.entries(s.likert_correlations).map(([k, c]) => [k.replace('|', ' – '), c?.n, fmt(c?.rho), fmt(c?.p, 'p')]);
  if (likertRows.length) sections.push(`<h2>Likert correlations</h2>${htmlTable(['items', 'n', 'Spearman ρ', 'p'], likertRows)}`);

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tandem productivity report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:1rem 0;font-variant-numeric:tabular-nums}caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #ddd;padding:.25rem .55rem;text-align:right}th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}
.note{color:#666}svg{max-width:100%;height:auto}
</style></head><body>
${sections.join('\n')}
</body></html>
`;
}
