import type { TopLevelSpec } from 'vega-lite';
import type { CostSpread } from '../../productivity/costSpread';
import { CONFIG, PANEL_WIDTH, SCHEMA, pageTitle, taskPages } from './common';
import { MAX_TASK_PANELS } from './quadrantScatter';

export { MAX_TASK_PANELS };

export interface CostPoint {
  task: string;
  quality: number;
  cost: number;
}

/** One quality level of one task: cost_spread of summary.json with its task. */
export type CostLevel = CostSpread & { task: string };

/** Levels with more sessions than this are drawn as box + min–max rule only (no per-session ticks). */
export const MAX_TICKS_PER_LEVEL = 40;

/**
 * Fig 2: cost within each quality level, per task, on a log scale: the min–max rule, the interquartile
 * box with the median, and the max/min ratio above each level; individual sessions as ticks where a
 * level has at most MAX_TICKS_PER_LEVEL of them. Zero costs cannot sit on a log axis: the lower end of
 * the rule is the smallest positive cost and the report counts the zero-cost sessions in a note.
 * One figure per page of MAX_TASK_PANELS tasks.
 */
export function costByQualityPages(levels: CostLevel[], points: CostPoint[] = []): TopLevelSpec[] {
  const tasks = [...new Set(levels.map((l) => l.task))].sort();
  const pages = taskPages(tasks);
  const small = new Set(levels.filter((l) => l.n <= MAX_TICKS_PER_LEVEL).map((l) => `${l.task}\u0000${l.quality}`));
  return pages.map((page, k) => {
    const keep = new Set(page);
    const boxes = levels
      .filter((l) => keep.has(l.task) && l.min_positive !== null)
      .map((l) => ({
        task: l.task,
        quality: l.quality,
        n: l.n,
        low: l.min_positive,
        high: l.max,
        q1: Math.max(l.q1, l.min_positive!),
        q3: Math.max(l.q3, l.min_positive!),
        median: Math.max(l.median, l.min_positive!),
        label: l.ratio === null ? (l.n_zero ? `${l.n_zero} at 0` : '') : `${formatRatio(l.ratio)}×`,
      }));
    const ticks = points.filter((p) => keep.has(p.task) && p.cost > 0 && small.has(`${p.task}\u0000${p.quality}`));
    const x = { field: 'quality', type: 'ordinal' as const, title: 'quality', axis: { labelExpr: "format(datum.value, ',.4~g')", labelAngle: 0 } };
    return {
      $schema: SCHEMA,
      title: `Cost within each quality level (log scale; box = IQR, rule = min–max, label = max/min)${pageTitle(k, pages.length, tasks.length)}`,
      config: CONFIG,
      datasets: { boxes, ticks },
      data: { name: 'boxes' },
      facet: { field: 'task', type: 'nominal', title: null },
      columns: 2,
      spec: {
        width: PANEL_WIDTH,
        height: PANEL_WIDTH,
        layer: [
          { mark: { type: 'rule', color: '#888' }, encoding: { x, y: { field: 'low', type: 'quantitative', scale: { type: 'log' }, title: 'cost C' }, y2: { field: 'high' } } },
          { mark: { type: 'bar', color: '#9ecae1', size: 14 }, encoding: { x, y: { field: 'q1', type: 'quantitative' }, y2: { field: 'q3' } } },
          { mark: { type: 'tick', color: '#08519c', thickness: 2, size: 16 }, encoding: { x, y: { field: 'median', type: 'quantitative' } } },
          { mark: { type: 'text', dy: -7, fontSize: 9 }, encoding: { x, y: { field: 'high', type: 'quantitative' }, text: { field: 'label' } } },
          {
            data: { name: 'ticks' },
            transform: [],
            mark: { type: 'tick', opacity: 0.5, color: '#1f5f9e', thickness: 1, size: 8 },
            encoding: { x, y: { field: 'cost', type: 'quantitative' } },
          },
        ],
      },
    } as TopLevelSpec;
  });
}

/** Old entry point: one figure (the first page) from per-session points. */
export function costByQualitySpec(points: CostPoint[]): TopLevelSpec {
  const byLevel = new Map<string, CostPoint[]>();
  for (const p of points) {
    const key = `${p.task}\u0000${p.quality}`;
    const list = byLevel.get(key);
    if (list) list.push(p);
    else byLevel.set(key, [p]);
  }
  const levels: CostLevel[] = [...byLevel.values()].map((ps) => {
    const costs = ps.map((p) => p.cost).sort((a, b) => a - b);
    const q = (f: number) => {
      const h = (costs.length - 1) * f;
      const lo = Math.floor(h);
      return costs[lo]! + (h - lo) * ((costs[Math.min(lo + 1, costs.length - 1)] ?? costs[lo]!) - costs[lo]!);
    };
    const positive = costs.filter((c) => c > 0);
    return {
      task: ps[0]!.task,
      quality: ps[0]!.quality,
      n: costs.length,
      min: costs[0]!,
      max: costs[costs.length - 1]!,
      ratio: costs[0] === 0 ? null : costs[costs.length - 1]! / costs[0]!,
      q1: q(0.25),
      median: q(0.5),
      q3: q(0.75),
      n_zero: costs.length - positive.length,
      min_positive: positive[0] ?? null,
    };
  });
  return costByQualityPages(levels, points)[0]!;
}

function formatRatio(r: number): string {
  return r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2).replace(/\.?0+$/, '');
}
