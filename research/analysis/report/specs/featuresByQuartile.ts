import type { TopLevelSpec } from 'vega-lite';
import type { Summary } from '../../summary';
import { CONFIG, SCHEMA } from './common';

export interface QuartileBar {
  /** 'per-turn rate' | 'per-session count' | 'opening 30% rate' */
  panel: string;
  speaker: string;
  quartile: 'top' | 'bottom';
  mean: number;
  sem: number;
  n: number;
}

export const FIG4_PANELS = ['per-turn rate', 'per-session count', 'opening 30% rate'] as const;

/**
 * Fig 4: agent and user probing in the top and bottom Pz quartiles, ±1 SEM — the per-turn rate, the
 * per-session count and the rate within the opening 30% of turns, one panel each (own y scale).
 */
export function featuresByQuartileSpec(bars: QuartileBar[], label = 'probing'): TopLevelSpec {
  const values = bars.map((b) => ({ ...b, low: b.mean - b.sem, high: b.mean + b.sem }));
  return {
    $schema: SCHEMA,
    title: `Fig 4. ${label[0]!.toUpperCase()}${label.slice(1)} by Pz quartile (±1 SEM)`,
    config: CONFIG,
    data: { values },
    facet: { column: { field: 'panel', type: 'nominal', sort: [...FIG4_PANELS], title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 100,
      height: 160,
      encoding: {
        x: { field: 'speaker', type: 'nominal', title: null, axis: { labelAngle: 0 } },
        xOffset: { field: 'quartile', sort: ['top', 'bottom'] },
      },
      layer: [
        {
          mark: 'bar',
          encoding: {
            y: { field: 'mean', type: 'quantitative', title: null },
            color: { field: 'quartile', type: 'nominal', sort: ['top', 'bottom'], scale: { range: ['#1b9e77', '#d95f02'] } },
            tooltip: [{ field: 'speaker' }, { field: 'quartile' }, { field: 'mean', format: '.3f' }, { field: 'sem', format: '.3f' }, { field: 'n' }],
          },
        },
        {
          mark: { type: 'errorbar', ticks: { color: 'black', size: 8 }, rule: { color: 'black' } },
          encoding: { y: { field: 'low', type: 'quantitative', title: null }, y2: { field: 'high' } },
        },
      ],
    },
  } as TopLevelSpec;
}

/** Fig 4's bars from summary.json: features (rate), feature_counts (count), features_opening (opening rate). */
export function fig4Bars(s: Pick<Summary, 'features' | 'feature_counts' | 'features_opening'>, label = 'probing'): QuartileBar[] {
  const bars: QuartileBar[] = [];
  const panels: Array<[string, Summary['features']]> = [[FIG4_PANELS[0], s.features], [FIG4_PANELS[1], s.feature_counts], [FIG4_PANELS[2], s.features_opening]];
  for (const [panel, table] of panels) {
    for (const speaker of ['agent', 'user']) {
      const f = table[`${speaker}:${label}`];
      if (!f) continue;
      bars.push({ panel, speaker, quartile: 'top', mean: f.top_mean, sem: f.top_sem ?? 0, n: f.n_top });
      bars.push({ panel, speaker, quartile: 'bottom', mean: f.bottom_mean, sem: f.bottom_sem ?? 0, n: f.n_bottom });
    }
  }
  return bars;
}
