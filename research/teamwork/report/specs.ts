/** Vega-lite specs of the teamwork report: leaderboard with intervals, dimension heatmap, score vs cost with the Pareto frontier, failure modes. */
import type { TopLevelSpec } from 'vega-lite';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

export interface LeaderboardPoint {
  model: string;
  score: number;
  lo: number | null;
  hi: number | null;
}

export function leaderboardSpec(points: LeaderboardPoint[]): TopLevelSpec {
  const order = points.map((p) => p.model);
  return {
    $schema: SCHEMA,
    title: 'Overall score (0–100) with 95% bootstrap interval',
    width: 420,
    height: Math.max(60, 24 * points.length),
    data: { values: points },
    layer: [
      { mark: { type: 'rule' }, encoding: { y: { field: 'model', type: 'nominal', sort: order }, x: { field: 'lo', type: 'quantitative', scale: { domain: [0, 100] }, title: 'score' }, x2: { field: 'hi' } } },
      { mark: { type: 'point', filled: true, size: 60 }, encoding: { y: { field: 'model', type: 'nominal', sort: order }, x: { field: 'score', type: 'quantitative' } } },
    ],
  };
}

export function dimensionHeatmapSpec(cells: Array<{ model: string; dimension: string; test: number | null }>, models: string[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: 'Test score per dimension (gated tasks; blank = no gated task)',
    width: { step: 72 },
    height: { step: 26 },
    data: { values: cells.filter((c) => c.test !== null).map((c) => ({ ...c, label: c.test!.toFixed(0) })) },
    encoding: { x: { field: 'dimension', type: 'nominal', title: null }, y: { field: 'model', type: 'nominal', sort: models, title: null } },
    layer: [
      { mark: 'rect', encoding: { color: { field: 'test', type: 'quantitative', scale: { domain: [0, 100], scheme: 'blues' }, title: 'score' } } },
      { mark: { type: 'text' }, encoding: { text: { field: 'label', type: 'nominal' }, color: { condition: { test: 'datum.test > 60', value: 'white' }, value: 'black' } } },
    ],
  };
}

export interface CostPoint {
  model: string;
  cost: number;
  score: number;
}

/** Models no other model beats on both cost (lower) and score (higher), by cost. */
export function paretoFrontier(points: readonly CostPoint[]): CostPoint[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || b.score - a.score);
  const frontier: CostPoint[] = [];
  for (const p of sorted) if (frontier.length === 0 || p.score > frontier.at(-1)!.score) frontier.push(p);
  return frontier;
}

export function scoreVsCostSpec(points: CostPoint[], costTitle: string): TopLevelSpec {
  const drawable = points.filter((p) => p.cost > 0);
  const frontier = paretoFrontier(drawable).map((p) => ({ ...p, frontier: true }));
  return {
    $schema: SCHEMA,
    title: 'Score against cost (log scale); line = Pareto frontier',
    width: 420,
    height: 280,
    layer: [
      { data: { values: frontier }, mark: { type: 'line', strokeDash: [4, 3], color: 'gray' }, encoding: { x: { field: 'cost', type: 'quantitative', scale: { type: 'log' }, title: costTitle }, y: { field: 'score', type: 'quantitative' } } },
      { data: { values: drawable }, mark: { type: 'point', filled: true, size: 70 }, encoding: { x: { field: 'cost', type: 'quantitative', scale: { type: 'log' } }, y: { field: 'score', type: 'quantitative', scale: { domain: [0, 100] }, title: 'overall score' }, color: { field: 'model', type: 'nominal' } } },
      { data: { values: drawable }, mark: { type: 'text', dx: 8, align: 'left' }, encoding: { x: { field: 'cost', type: 'quantitative', scale: { type: 'log' } }, y: { field: 'score', type: 'quantitative' }, text: { field: 'model', type: 'nominal' } } },
    ],
  };
}

export function failureModesSpec(rows: Array<{ model: string; mode: string; runs: number }>, models: string[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: 'Failed test runs by failure mode (gated tasks)',
    width: 420,
    height: Math.max(60, 24 * models.length),
    data: { values: rows },
    mark: 'bar',
    encoding: {
      y: { field: 'model', type: 'nominal', sort: models, title: null },
      x: { field: 'runs', type: 'quantitative', title: 'failed test runs' },
      color: { field: 'mode', type: 'nominal', scale: { domain: ['missed_it', 'gave_in', 'other'] } },
    },
  };
}
