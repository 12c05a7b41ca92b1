import type { TopLevelSpec } from 'vega-lite';

/**
 * Heatmap of Spearman ρ between Pz rankings keyed "a|b" (λ sensitivity or cost definitions),
 * each cell labelled with its value.
 */
export function agreementHeatmapSpec(title: string, matrix: Record<string, number | null>, axisTitle: string): TopLevelSpec {
  const values = Object.entries(matrix).map(([key, rho]) => {
    const [a = '', b = ''] = key.split('|');
    return { a, b, rho, label: rho === null ? '–' : rho.toFixed(3) };
  });
  const order = [...new Set(values.map((v) => v.a))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values },
    width: { step: 52 },
    height: { step: 28 },
    encoding: {
      x: { field: 'a', type: 'ordinal', sort: order, title: axisTitle },
      y: { field: 'b', type: 'ordinal', sort: order, title: axisTitle },
    },
    layer: [
      { mark: 'rect', encoding: { color: { field: 'rho', type: 'quantitative', scale: { scheme: 'blues' }, title: 'ρ' } } },
      {
        mark: { type: 'text', fontSize: 10 },
        encoding: {
          text: { field: 'label' },
          // light text on the dark (high ρ) end of the colour scale
          color: { condition: { test: 'datum.rho > (domain("color")[0] + domain("color")[1]) / 2', value: 'white' }, value: 'black' },
        },
      },
    ],
  };
}
