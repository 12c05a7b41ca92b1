import type { TopLevelSpec } from 'vega-lite';
import { CONFIG, PANEL_WIDTH, SCHEMA, pageTitle, taskPages } from './common';

/** The `layer` array type of a layered vega-lite spec. */
type Layers = Extract<TopLevelSpec, { layer: unknown }>['layer'];

export interface QuadrantPoint {
  session_id: string;
  task: string;
  z_quality: number;
  z_cost: number;
  quadrant: string;
}

/** Kept for callers of the old name: the number of task panels per figure. */
export const MAX_TASK_PANELS = 12;

/**
 * z(Q) against z(C), one panel per task, with the task means of both as dashed lines. Sessions at the
 * same point are drawn once, sized by how many they are (ratings on a 1–5 scale coincide often). More
 * than MAX_TASK_PANELS tasks continue on further figures: see quadrantScatterPages.
 */
export function quadrantScatterSpec(points: QuadrantPoint[]): TopLevelSpec {
  return quadrantScatterPages(points)[0] ?? quadrantScatterPage(points, '');
}

/** One figure per page of MAX_TASK_PANELS tasks (tasks sorted by name), so every task gets a panel. */
export function quadrantScatterPages(points: QuadrantPoint[]): TopLevelSpec[] {
  const tasks = [...new Set(points.map((p) => p.task))].sort();
  const pages = taskPages(tasks);
  return pages.map((page, k) => {
    const keep = new Set(page);
    return quadrantScatterPage(points.filter((p) => keep.has(p.task)), pageTitle(k, pages.length, tasks.length));
  });
}

function quadrantScatterPage(points: QuadrantPoint[], suffix: string): TopLevelSpec {
  const merged = new Map<string, QuadrantPoint & { sessions: number }>();
  for (const p of points) {
    const key = `${p.task}\u0000${p.z_quality}\u0000${p.z_cost}`;
    const m = merged.get(key);
    if (m) m.sessions++;
    else merged.set(key, { ...p, sessions: 1 });
  }
  return {
    $schema: SCHEMA,
    title: `Quality vs. cost within task (z-scores)${suffix}`,
    config: CONFIG,
    data: { values: [...merged.values()] },
    facet: { field: 'task', type: 'nominal', title: null },
    columns: 2,
    spec: { width: PANEL_WIDTH, height: PANEL_WIDTH, layer: quadrantLayers() },
  };
}

function quadrantLayers(): Layers {
  return [
    {
      mark: { type: 'point', filled: true, opacity: 0.7 },
      encoding: {
        x: { field: 'z_cost', type: 'quantitative', title: 'z(C)' },
        y: { field: 'z_quality', type: 'quantitative', title: 'z(Q)' },
        size: { field: 'sessions', type: 'quantitative', title: 'sessions at this point', scale: { rangeMin: 20 }, legend: { format: 'd', tickMinStep: 1 } },
        color: {
          field: 'quadrant',
          type: 'nominal',
          legend: { labelLimit: 160 },
          scale: {
            domain: ['productive_success', 'costly_success', 'cheap_failure', 'unproductive_failure'],
            range: ['#1b9e77', '#7570b3', '#e6ab02', '#d95f02'],
          },
        },
        tooltip: [{ field: 'session_id' }, { field: 'sessions' }, { field: 'z_quality', format: '.2f' }, { field: 'z_cost', format: '.2f' }],
      },
    },
    { mark: { type: 'rule', strokeDash: [4, 4], color: '#555' }, encoding: { x: { datum: 0, type: 'quantitative' } } },
    { mark: { type: 'rule', strokeDash: [4, 4], color: '#555' }, encoding: { y: { datum: 0, type: 'quantitative' } } },
  ];
}
