import type { TopLevelSpec } from 'vega-lite';

export interface QuartileRate {
  speaker: string;
  quartile: 'top' | 'bottom';
  mean: number;
  /** Standard error of the mean (ddof = 1). */
  sem: number;
}

/** Mean probing rate of agent and user in the top and bottom Pz quartiles, with ±1 SEM bars. */
export function probingByQuartileSpec(rows: QuartileRate[]): TopLevelSpec {
  const values = rows.map((r) => ({ ...r, low: r.mean - r.sem, high: r.mean + r.sem }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Probing rate by Pz quartile (±1 SEM)',
    data: { values },
    width: 300,
    height: 220,
    encoding: {
      x: { field: 'speaker', type: 'nominal', title: null, axis: { labelAngle: 0 } },
      xOffset: { field: 'quartile', sort: ['top', 'bottom'] },
    },
    layer: [
      {
        mark: 'bar',
        encoding: {
          y: { field: 'mean', type: 'quantitative', title: 'share of turns' },
          color: { field: 'quartile', type: 'nominal', sort: ['top', 'bottom'], scale: { range: ['#1b9e77', '#d95f02'] } },
        },
      },
      {
        mark: { type: 'errorbar', ticks: { color: 'black', size: 14 }, rule: { color: 'black' } },
        encoding: { y: { field: 'low', type: 'quantitative', title: 'share of turns' }, y2: { field: 'high' } },
      },
    ],
  };
}
