import type { TopLevelSpec } from 'vega-lite';
import { escapeHtml } from '../../common/escapeHtml';
import { renderSvg } from '../../lib/charts/renderSvg';
import type { DashboardData } from '../../common/adminSessionList';

/**
 * The dashboard's plots as vega-lite specs, rendered to SVG on the server (vega's expression code
 * needs eval, which the dashboard's CSP forbids in the browser) and served as one HTML page for a
 * sandboxed iframe with no scripts, like the analysis report.
 */

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const WIDTH = 420;
const STATUS_COLOURS = { domain: ['active', 'completed', 'timed_out', 'declined'], range: ['#1d4ed8', '#067647', '#b54708', '#98a2b3'] };

export interface DashboardPlot {
  id: string;
  title: string;
  /** null: nothing to draw yet; `empty` says why. */
  spec: TopLevelSpec | null;
  empty: string;
}

export function enrolmentPlot(data: DashboardData): DashboardPlot {
  const { bucket, rows } = data.enrolment;
  const values = rows.flatMap((r) => [
    { at: r.at, series: 'started', n: r.started },
    { at: r.at, series: 'completed', n: r.completed },
    { at: r.at, series: 'timed out', n: r.timedOut },
  ]);
  return {
    id: 'enrolment',
    title: `Enrolment per ${bucket} (UTC)`,
    empty: 'No sessions yet.',
    spec: rows.length === 0 ? null : {
      $schema: SCHEMA,
      width: WIDTH,
      height: 180,
      data: { values },
      mark: { type: 'line', point: true, interpolate: 'monotone' },
      encoding: {
        x: { field: 'at', type: 'temporal', timeUnit: bucket === 'day' ? 'utcyearmonthdate' : 'utcyearmonthdatehours', title: null },
        y: { field: 'n', type: 'quantitative', title: 'sessions', axis: { tickMinStep: 1 } },
        color: { field: 'series', type: 'nominal', title: null, scale: { domain: ['started', 'completed', 'timed out'], range: ['#1d4ed8', '#067647', '#b54708'] } },
      },
    },
  };
}

export function conditionBalancePlot(data: DashboardData): DashboardPlot {
  return {
    id: 'conditions',
    title: 'Condition balance (sessions by outcome)',
    empty: 'No sessions yet.',
    spec: data.conditions.length === 0 ? null : {
      $schema: SCHEMA,
      width: WIDTH,
      height: { step: 28 },
      data: { values: data.conditions },
      mark: 'bar',
      encoding: {
        y: { field: 'conditionId', type: 'nominal', title: 'condition' },
        x: { field: 'n', type: 'quantitative', title: 'sessions', stack: 'zero', axis: { tickMinStep: 1 } },
        color: { field: 'status', type: 'nominal', title: 'outcome', scale: STATUS_COLOURS },
      },
    },
  };
}

export function funnelPlot(data: DashboardData): DashboardPlot {
  const total = data.funnel[0]?.reached ?? 0;
  const values = data.funnel.map((f) => ({ ...f, share: total === 0 ? 0 : f.reached / total }));
  return {
    id: 'funnel',
    title: 'Completion funnel: sessions that reached each step',
    empty: 'No sessions yet.',
    spec: total === 0 ? null : {
      $schema: SCHEMA,
      width: WIDTH,
      height: { step: 28 },
      data: { values },
      encoding: {
        y: { field: 'step', type: 'ordinal', sort: data.funnel.map((f) => f.step), title: null },
        x: { field: 'reached', type: 'quantitative', title: 'sessions', axis: { tickMinStep: 1 } },
      },
      layer: [
        { mark: { type: 'bar', color: '#1d4ed8' } },
        { mark: { type: 'text', align: 'left', dx: 4 }, encoding: { text: { field: 'share', type: 'quantitative', format: '.0%' } } },
      ],
    },
  };
}

/**
 * Ticks closer than this fraction of the axis coincide on screen (a pixel at WIDTH, where a tick is 2 px wide):
 * one tick per condition and position is drawn, which keeps the page small at thousands of sessions (the audit
 * measured 2.6 MB at 10k) and looks the same.
 */
const TICK_RESOLUTION = 1 / WIDTH;

/** The ticks to draw (one per condition and on-screen position) and each condition's median, from all values. */
export function stripValues(values: { conditionId: string; value: number }[]): { ticks: { conditionId: string; value: number }[]; medians: { conditionId: string; value: number }[] } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v.value < min) min = v.value;
    if (v.value > max) max = v.value;
  }
  const step = (max - min) * TICK_RESOLUTION;
  const seen = new Set<string>();
  const ticks: { conditionId: string; value: number }[] = [];
  const byCondition = new Map<string, number[]>();
  for (const v of values) {
    const key = `${v.conditionId}\u0000${step > 0 ? Math.round((v.value - min) / step) : 0}`;
    if (!seen.has(key)) {
      seen.add(key);
      ticks.push(v);
    }
    const list = byCondition.get(v.conditionId);
    if (list) list.push(v.value);
    else byCondition.set(v.conditionId, [v.value]);
  }
  const medians = [...byCondition].map(([conditionId, list]) => {
    list.sort((a, b) => a - b);
    const mid = list.length >> 1;
    return { conditionId, value: list.length % 2 === 1 ? list[mid]! : (list[mid - 1]! + list[mid]!) / 2 };
  });
  return { ticks, medians };
}

/** One tick per session along `field`, a row per condition (honest for small n; no smoothing). */
function stripPlot(id: string, title: string, values: { conditionId: string; value: number }[], axisTitle: string, empty: string): DashboardPlot {
  const { ticks, medians } = stripValues(values);
  return {
    id,
    title,
    empty,
    spec: values.length === 0 ? null : {
      $schema: SCHEMA,
      width: WIDTH,
      height: { step: 32 },
      layer: [
        {
          data: { values: ticks },
          mark: { type: 'tick', thickness: 2, opacity: 0.7, color: '#1d4ed8' },
          encoding: { x: { field: 'value', type: 'quantitative', title: axisTitle }, y: { field: 'conditionId', type: 'nominal', title: 'condition' } },
        },
        {
          data: { values: medians },
          mark: { type: 'point', shape: 'diamond', filled: true, size: 80, color: '#b42318' },
          encoding: { x: { field: 'value', type: 'quantitative' }, y: { field: 'conditionId', type: 'nominal' } },
        },
      ],
    },
  };
}

export function dashboardPlots(data: DashboardData): DashboardPlot[] {
  const submitted = data.sessions.filter((s) => s.timeOnTaskMs !== null);
  const judged = data.sessions.filter((s) => s.quality !== null);
  const withPz = data.sessions.filter((s) => s.pz !== null);
  const notJudged = 'Not judged yet: run the judge to see quality.';
  return [
    enrolmentPlot(data),
    conditionBalancePlot(data),
    funnelPlot(data),
    stripPlot('time-on-task', 'Time on task (consent to submission), minutes · ◆ median', submitted.map((s) => ({ conditionId: s.conditionId, value: s.timeOnTaskMs! / 60_000 })), 'minutes', 'No submissions yet.'),
    stripPlot('cost', 'Interaction cost C = user + 0.5 × assistant tokens · ◆ median', submitted.map((s) => ({ conditionId: s.conditionId, value: s.cost })), 'cost C (tokens)', 'No submissions yet.'),
    stripPlot('quality', 'Quality Q per condition (judge median, 1–5) · ◆ median', judged.map((s) => ({ conditionId: s.conditionId, value: s.quality! })), 'Q', notJudged),
    stripPlot('pz', 'Pz = z(Q) − z(C) per condition (within task, non-pilot) · ◆ median', withPz.map((s) => ({ conditionId: s.conditionId, value: s.pz! })), 'Pz', notJudged),
  ];
}

/** The plots page: every text escaped, SVG from vega, no script (the route's CSP forbids any). */
export async function renderDashboardPage(data: DashboardData, studyTitle: string): Promise<string> {
  const figures = await Promise.all(
    dashboardPlots(data).map(async (plot) => {
      const body = plot.spec ? await renderSvg(plot.spec) : `<p class="empty">${escapeHtml(plot.empty)}</p>`;
      return `<figure data-plot="${escapeHtml(plot.id)}"><figcaption>${escapeHtml(plot.title)}</figcaption>${body}</figure>`;
    }),
  );
  const pilot = data.pilot === 'exclude' ? 'pilot sessions left out' : data.pilot === 'only' ? 'pilot sessions only' : 'pilot sessions included';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`Dashboard · ${studyTitle}`)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0.5rem; color: #1c1f24; }
.meta { color: #5a6270; font-size: 0.85rem; margin: 0 0 0.5rem; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem; }
figure { margin: 0; padding: 0.5rem; border: 1px solid #d3d8e0; border-radius: 8px; max-width: 100%; overflow-x: auto; }
figcaption { font-weight: 600; font-size: 0.95rem; margin-bottom: 0.25rem; }
.empty { color: #5a6270; width: ${WIDTH}px; max-width: 100%; }
</style></head>
<body><p class="meta">${escapeHtml(`${data.sessions.length} sessions, ${pilot} · as of ${new Date(data.at).toISOString().replace('T', ' ').slice(0, 19)} UTC`)}</p>
<div class="grid">
${figures.join('\n')}
</div></body></html>`;
}
