import type { Dataset } from '../input/dataset';
import type { Analysis, Summary } from '../summary';
import type { AgreementReport } from '../agreement/runAgreement';
import { QUADRANTS } from '../productivity/withinTaskZ';
import { escapeHtml } from '../../../common/escapeHtml';
import { renderSvg } from '../../../lib/charts/renderSvg';
import { fmt, fmtValue, htmlTable } from './tables';
import { agreementHeatmapSpec } from './specs';
import { quadrantPoints } from './specs/fromSummary';
import { quadrantScatterPages } from './specs/quadrantScatter';
import { costByQualityPages, type CostLevel } from './specs/costByQuality';
import { featuresByQuartileSpec, fig4Bars } from './specs/featuresByQuartile';
import { conditionsByTaskPages } from './specs/conditionsByTask';
import { agreementHtml } from './agreementSection';
import { conditionPoints, conditionTables } from './conditionsHtml';

/** Scatter plots draw at most this many sessions per task (every k-th, deterministic); tables use all. */
const MAX_PLOTTED_PER_TASK = 600;

/** report.html: one self-contained offline page with inline SVG plots and the summary tables. */
export async function renderReport(
  data: Dataset,
  analysis: Analysis,
  extra: { agreement?: AgreementReport | null; /** --prereg: "Pre-registered analysis", "Deviations", then an "Exploratory" heading over the rest. */ preregisteredHtml?: string; /** The "Groups" section (groups/groupsHtml.ts) of a dataset with group conditions. */ groupsHtml?: string } = {},
): Promise<string> {
  const s = analysis.summary;
  const entries = Object.entries(s.sessions);
  const { plotted, thinned } = thinPerTask(entries);
  const sections: string[] = [];
  const figures = async (specs: Parameters<typeof renderSvg>[0][]) => (await Promise.all(specs.map(renderSvg))).map((svg) => `<figure>${svg}</figure>`).join('\n');

  sections.push(`<h1>Collaborative productivity report</h1>
<p>${escapeHtml(`${s.n_sessions} sessions, ${s.n_scored} with a quality score (${s.n_unscored} without, left out of z, Pz and everything built on them). ` +
    `Cost: ${s.cost_definition}${s.cost_definition === 'weighted' ? ` (C = user_tokens + ${s.lambda} · agent_tokens)` : ''}; counts from ${s.counts_source}. ` +
    `Pz = z(Q) − z(C), z within task with the sample SD.` +
    (s.n_simulated_excluded === undefined ? '' : ` ${s.n_simulated_excluded} simulated session(s) left out${s.n_simulated_excluded ? ' (keep them with --include-simulated)' : ''}.`))}</p>
${thinned ? `<p class="note">${escapeHtml(`Scatter plots show at most ${MAX_PLOTTED_PER_TASK} sessions per task (every k-th); every task has its panel; tables and box plots use all sessions.`)}</p>` : ''}
${s.warnings.length ? `<div class="warnings"><strong>Warnings</strong><ul>${s.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>` : ''}`);
  if (extra.preregisteredHtml) sections.push(extra.preregisteredHtml);

  if (entries.length > 0) {
    sections.push(`<h2>Quadrants</h2><p class="note">Sessions at the same point are drawn once, sized by their number.</p>${await figures(quadrantScatterPages(quadrantPoints(plotted)))}`);
    sections.push(htmlTable(['task', ...QUADRANTS], quadrantRows(s), 'Sessions per quadrant'));
    const levels: CostLevel[] = Object.entries(s.tasks).flatMap(([task, r]) => r.cost_spread.map((c) => ({ ...c, task })));
    const zero = levels.reduce((n, l) => n + l.n_zero, 0);
    sections.push(
      `<h2>Cost within quality levels</h2>${await figures(costByQualityPages(levels, plotted.map(([, r]) => ({ task: r.task, quality: r.quality, cost: r.cost }))))}` +
        (zero ? `<p class="note">${escapeHtml(`${zero} session(s) with cost 0 are not drawn on the log axis (counted in the table; their level's max/min ratio is undefined).`)}</p>` : ''),
    );
    const spreadRows = levels.map((c) => [c.task, fmtValue(c.quality), c.n, fmt(c.min, 'cost'), fmt(c.median, 'cost'), fmt(c.max, 'cost'), c.ratio === null ? '–' : `${fmtValue(c.ratio)}×`, c.n_zero]);
    sections.push(htmlTable(['task', 'quality', 'n', 'min C', 'median C', 'max C', 'max/min', 'cost 0'], spreadRows, 'Cost spread within each quality level'));
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
    sections.push(`<h2>Robustness</h2>${await figures([
      agreementHeatmapSpec('Pz ranking agreement across λ (Spearman ρ)', s.sensitivity_lambda, 'λ'),
      agreementHeatmapSpec('Pz ranking agreement across cost definitions (Spearman ρ)', s.cost_definitions, 'cost'),
    ])}`);
  }

  sections.push(await featureSection(data, s, figures));
  sections.push(await conditionSectionHtml(s, figures));
  if (extra.groupsHtml) sections.push(extra.groupsHtml);
  if (extra.agreement) sections.push(agreementHtml(extra.agreement));

  const likertRows = Object.entries(s.likert_correlations).map(([k, c]) => [k.replace('|', ' – '), c?.n, fmt(c?.rho), fmt(c?.p, 'p')]);
  if (likertRows.length) sections.push(`<h2>Likert correlations</h2>${htmlTable(['items', 'n', 'Spearman ρ', 'p'], likertRows)}`);

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tandem productivity report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1rem auto;max-width:1100px;padding:0 .75rem;color:#222;overflow-wrap:anywhere}
h1{font-size:1.5rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;font-size:1.2rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:1rem 0;font-variant-numeric:tabular-nums}caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left;white-space:normal}th{background:#f5f5f5}
.note{color:#666}.warnings{background:#fff6e0;border:1px solid #e6c36a;padding:.4rem .8rem;margin:1rem 0}
figure{margin:1rem 0}svg{max-width:100%;height:auto}
</style></head><body>
${sections.join('\n')}
</body></html>
`;
}

type Figures = (specs: Parameters<typeof renderSvg>[0][]) => Promise<string>;

async function featureSection(data: Dataset, s: Summary, figures: Figures): Promise<string> {
  const head = '<h2>Dialogue features by Pz quartile</h2>';
  if (!data.annotations || Object.keys(s.features).length === 0) {
    const why = !data.annotations ? 'No annotations.csv in the dataset' : 'No quartiles (no session has a Pz)';
    return `${head}<p class="note">${escapeHtml(`${why}: the dialogue-feature comparison was not computed (run npm run annotate to label the dialogues).`)}</p>`;
  }
  const bars = fig4Bars(s);
  const plot = bars.length ? await figures([featuresByQuartileSpec(bars)]) : '';
  const rows = Object.entries(s.features)
    .sort((a, b) => (a[1].p ?? 1) - (b[1].p ?? 1))
    .map(([k, f]) => {
      const full = s.bootstrap.quartile_difference_resampling_pz[k];
      const conditional = s.bootstrap.quartile_difference[k];
      return [k, `${f.n_top} / ${f.n_bottom}`, fmt(f.top_mean), fmt(f.bottom_mean), fmt(f.cohen_d), fmt(f.u), fmt(f.p, 'p'), f.method ?? '–', fmt(f.p_holm, 'p'), fmt(f.p_bh, 'p'),
        full ? `[${fmt(full.low)}, ${fmt(full.high)}]` : '', conditional ? `[${fmt(conditional.low)}, ${fmt(conditional.high)}]` : ''];
    });
  return `${head}${plot}${htmlTable(
    ['feature (rate)', 'n top / bottom', `top ${s.quartiles.top.length}`, `bottom ${s.quartiles.bottom.length}`, "Cohen's d", 'U', 'Mann-Whitney p', 'method', 'p (Holm)', 'p (BH)', 'diff 95% CI', 'CI | quartiles fixed'],
    rows,
    'Per-speaker label rates, top vs bottom Pz quartile (sorted by p)',
  )}<p class="note">${escapeHtml(
    'A speaker with no turns in a session has no rate (missing, not 0): n counts the sessions with a value. Holm and Benjamini–Hochberg adjust over the rows of this table. ' +
      '"diff 95% CI" resamples sessions within task and recomputes Pz and the quartiles in every replicate; "CI | quartiles fixed" resamples within each quartile (conditional on the observed split).',
  )}</p>`;
}

async function conditionSectionHtml(s: Summary, figures: Figures): Promise<string> {
  const c = s.conditions;
  const head = '<h2>Condition comparison</h2>';
  if (c.names.length < 2) return `${head}<p class="note">${escapeHtml(c.notes.join('; ') || 'fewer than two conditions')}</p>`;
  const notes = [
    `Per task: Mann–Whitney U (exact without ties when a group has ≤ 8 sessions, else normal approximation), Kruskal–Wallis over 3+ conditions; pooled: differences stratified by task, p from ${c.replicates} permutations of condition labels within task. ` +
      `Intervals: seeded percentile bootstrap (${c.replicates}×, seed ${c.seed}) resampling sessions within task and condition. p (Holm) adjusts within each family (outcomes; Likert items; quadrants).`,
    ...c.notes,
  ];
  return `${head}${await figures(conditionsByTaskPages(conditionPoints(c, 'pz')))}<p class="note">${escapeHtml(notes.join(' '))}</p>${conditionTables(c)}`;
}

function quadrantRows(s: Summary): Array<Array<string | number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const r of Object.values(s.sessions)) {
    if (r.quadrant === null) continue;
    const m = counts.get(r.task) ?? new Map<string, number>();
    m.set(r.quadrant, (m.get(r.quadrant) ?? 0) + 1);
    counts.set(r.task, m);
  }
  const total = (q: string) => [...counts.values()].reduce((n, m) => n + (m.get(q) ?? 0), 0);
  return [['all tasks', ...QUADRANTS.map(total)], ...[...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([t, m]) => [t, ...QUADRANTS.map((q) => m.get(q) ?? 0)])];
}

/** Every k-th session of each task, so that every task keeps a panel however large the study. */
function thinPerTask<T extends { task: string }>(entries: Array<[string, T]>): { plotted: Array<[string, T]>; thinned: boolean } {
  const byTask = new Map<string, Array<[string, T]>>();
  for (const e of entries) {
    const list = byTask.get(e[1].task);
    if (list) list.push(e);
    else byTask.set(e[1].task, [e]);
  }
  let thinned = false;
  const plotted = [...byTask.values()].flatMap((list) => {
    const step = Math.max(1, Math.ceil(list.length / MAX_PLOTTED_PER_TASK));
    if (step > 1) thinned = true;
    return list.filter((_, i) => i % step === 0);
  });
  return { plotted, thinned };
}
