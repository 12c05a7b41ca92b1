import type { TopLevelSpec } from 'vega-lite';
import type { Summary } from '../../summary';
import { quadrantScatterSpec, type QuadrantPoint } from './quadrantScatter';
import { costByQualitySpec } from './costByQuality';
import { probingByQuartileSpec, type QuartileRate } from './probingByQuartile';
import { agreementHeatmapSpec } from './agreementHeatmap';
import { featuresByQuartileSpec, fig4Bars } from './featuresByQuartile';
import { conditionsByTaskPages } from './conditionsByTask';
import { conditionPoints } from '../conditionsHtml';

/**
 * The report's plots built from summary.json alone, so a dashboard can show them without the dataset.
 * `maxPoints` thins the per-session plots (every k-th session) for large studies.
 */
export function specsFromSummary(summary: Summary, maxPoints = 4000): Record<string, TopLevelSpec> {
  const entries = Object.entries(summary.sessions);
  const step = Math.max(1, Math.ceil(entries.length / maxPoints));
  const plotted = entries.filter((_, i) => i % step === 0);
  const specs: Record<string, TopLevelSpec> = {};
  if (plotted.length) {
    specs.quadrants = quadrantScatterSpec(quadrantPoints(plotted));
    specs.costByQuality = costByQualitySpec(plotted.map(([, r]) => ({ task: r.task, quality: r.quality, cost: r.cost })));
  }
  if (entries.length > 1) {
    specs.lambdaSensitivity = agreementHeatmapSpec('Pz ranking agreement across λ (Spearman ρ)', summary.sensitivity_lambda, 'λ');
    specs.costDefinitions = agreementHeatmapSpec('Pz ranking agreement across cost definitions (Spearman ρ)', summary.cost_definitions, 'cost');
  }
  const rows: QuartileRate[] = [];
  for (const speaker of ['agent', 'user']) {
    const f = summary.features[`${speaker}:probing`];
    if (!f) continue;
    rows.push({ speaker, quartile: 'top', mean: f.top_mean, sem: f.top_sem ?? 0 });
    rows.push({ speaker, quartile: 'bottom', mean: f.bottom_mean, sem: f.bottom_sem ?? 0 });
  }
  if (rows.length) specs.probingByQuartile = probingByQuartileSpec(rows);
  const bars = fig4Bars(summary);
  if (bars.length) specs.fig4 = featuresByQuartileSpec(bars);
  // pages of 12 tasks: conditions, conditions_2, …
  if (summary.conditions?.names.length > 1) {
    conditionsByTaskPages(conditionPoints(summary.conditions, 'pz')).forEach((spec, k) => (specs[k === 0 ? 'conditions' : `conditions_${k + 1}`] = spec));
  }
  return specs;
}

/** Sessions that have a quadrant (a task's only scored session has none), as scatter points. */
export function quadrantPoints(entries: Array<[string, Summary['sessions'][string]]>): QuadrantPoint[] {
  const out: QuadrantPoint[] = [];
  for (const [session_id, r] of entries) {
    if (r.quadrant !== null && r.z_quality !== null && r.z_cost !== null) out.push({ session_id, task: r.task, z_quality: r.z_quality, z_cost: r.z_cost, quadrant: r.quadrant });
  }
  return out;
}
