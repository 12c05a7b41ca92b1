import type { TopLevelSpec } from 'vega-lite';
import { MAX_TASK_PANELS } from './quadrantScatter';

export interface CostPoint {
  task: string;
  quality: number;
  cost: number;
}

/**
 * Cost of each session by quality level, per task, on a log scale (costs of 0 cannot be drawn). With more
 * than MAX_TASK_PANELS tasks only the tasks with the most sessions get a panel (named in the title).
 */
export function costByQualitySpec(points: CostPoint[]): TopLevelSpec {
  const perTask = new Map<string, number>();
  for (const p of points) perTask.set(p.task, (perTask.get(p.task) ?? 0) + 1);
  const shown = new Set([...perTask].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_TASK_PANELS).map(([t]) => t));
  const title = perTask.size > MAX_TASK_PANELS
    ? `Cost within each quality level (log scale), ${MAX_TASK_PANELS} largest of ${perTask.size} tasks`
    : 'Cost within each quality level (log scale)';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: points.filter((p) => p.cost > 0 && shown.has(p.task)) },
    facet: { field: 'task', type: 'nominal', title: null },
    columns: 2,
    spec: {
      width: 260,
      height: 200,
      layer: [
        {
          mark: { type: 'tick', opacity: 0.8, color: '#1f5f9e', thickness: 1.5 },
          encoding: {
            x: { field: 'quality', type: 'ordinal', title: 'quality' },
            y: { field: 'cost', type: 'quantitative', scale: { type: 'log' }, title: 'cost C' },
          },
        },
        {
          mark: { type: 'rule', color: '#999' },
          encoding: {
            x: { field: 'quality', type: 'ordinal' },
            y: { aggregate: 'min', field: 'cost', type: 'quantitative' },
            y2: { aggregate: 'max', field: 'cost' },
          },
        },
      ],
    },
  };
}
