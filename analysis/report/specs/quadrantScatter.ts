import type { TopLevelSpec } from 'vega-lite';

/** The `layer` array type of a layered vega-lite spec. */
type Layers = Extract<TopLevelSpec, { layer: unknown }>['layer'];

export interface QuadrantPoint {
  session_id: string;
  task: string;
  z_quality: number;
  z_cost: number;
  quadrant: string;
}

/** Studies with more tasks than this get one pooled panel instead of one panel per task. */
export const MAX_TASK_PANELS = 12;

/**
 * z(Q) against z(C), one panel per task, with the task means of both as dashed lines. With more than
 * MAX_TASK_PANELS tasks all sessions share one panel (z is within task, so every task mean is 0).
 */
export function quadrantScatterSpec(points: QuadrantPoint[]): TopLevelSpec {
  const tasks = new Set(points.map((p) => p.task)).size;
  const layer = quadrantLayers();
  if (tasks > MAX_TASK_PANELS) {
    return {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: `Quality vs. cost within task (z-scores), ${tasks} tasks pooled`,
      data: { values: points },
      width: 520,
      height: 400,
      layer,
    };
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Quality vs. cost within task (z-scores)',
    data: { values: points },
    facet: { field: 'task', type: 'nominal', title: null },
    columns: 2,
    spec: { width: 260, height: 220, layer },
  };
}

function quadrantLayers(): Layers {
  return [
        {
          mark: { type: 'point', filled: true, opacity: 0.7, size: 30 },
          encoding: {
            x: { field: 'z_cost', type: 'quantitative', title: 'z(C)' },
            y: { field: 'z_quality', type: 'quantitative', title: 'z(Q)' },
            color: {
              field: 'quadrant',
              type: 'nominal',
              legend: { labelLimit: 220 },
              scale: {
                domain: ['productive_success', 'costly_success', 'cheap_failure', 'unproductive_failure'],
                range: ['#1b9e77', '#7570b3', '#e6ab02', '#d95f02'],
              },
            },
            tooltip: [{ field: 'session_id' }, { field: 'z_quality', format: '.2f' }, { field: 'z_cost', format: '.2f' }],
          },
        },
        { mark: { type: 'rule', strokeDash: [4, 4], color: '#555' }, encoding: { x: { aggregate: 'mean', field: 'z_cost', type: 'quantitative' } } },
        { mark: { type: 'rule', strokeDash: [4, 4], color: '#555' }, encoding: { y: { aggregate: 'mean', field: 'z_quality', type: 'quantitative' } } },
  ];
}
