import type { TopLevelSpec } from 'vega-lite';
import { CONFIG, PANEL_WIDTH, SCHEMA, pageTitle, taskPages } from './common';

export interface ConditionPoint {
  /** task name, or "all tasks (pooled)" */
  task: string;
  condition: string;
  n: number;
  mean: number;
  low: number | null;
  high: number | null;
}

/**
 * Pz by condition per task: each condition's mean Pz (point) with its seeded bootstrap 95% interval
 * (rule), one panel per task plus the pooled panel; more than 12 tasks continue on further figures.
 */
export function conditionsByTaskPages(points: ConditionPoint[], metricTitle = 'Pz'): TopLevelSpec[] {
  const tasks = [...new Set(points.map((p) => p.task))];
  const pages = taskPages(tasks);
  return pages.map((page, k) => {
    const keep = new Set(page);
    return {
      $schema: SCHEMA,
      title: `${metricTitle} by condition (mean, bootstrap 95% interval)${pageTitle(k, pages.length, tasks.length)}`,
      config: CONFIG,
      data: { values: points.filter((p) => keep.has(p.task)) },
      facet: { field: 'task', type: 'nominal', title: null, sort: page },
      columns: 2,
      spec: {
        width: PANEL_WIDTH,
        height: 120,
        encoding: { y: { field: 'condition', type: 'nominal', title: null } },
        layer: [
          { mark: { type: 'rule', color: '#555' }, encoding: { x: { field: 'low', type: 'quantitative', title: `mean ${metricTitle}` }, x2: { field: 'high' } } },
          {
            mark: { type: 'point', filled: true, size: 50, color: '#08519c' },
            encoding: { x: { field: 'mean', type: 'quantitative' }, tooltip: [{ field: 'condition' }, { field: 'n' }, { field: 'mean', format: '.3f' }, { field: 'low', format: '.3f' }, { field: 'high', format: '.3f' }] },
          },
          { mark: { type: 'rule', strokeDash: [3, 3], color: '#aaa' }, encoding: { x: { datum: 0, type: 'quantitative' } } },
        ],
      },
    } as TopLevelSpec;
  });
}
