/**
 * The dashboard plots' worker thread (dashboardPlotsRenderer.ts): renders the plots page (vega → SVG) off the
 * server's event loop, which it blocked for seconds at 10k sessions.
 */
import { parentPort } from 'node:worker_threads';
import type { DashboardData } from '../../common/adminSessionList';
import { renderDashboardPage } from './sessionListPlots';

export type PlotsRequest = { id: number; data: DashboardData; title: string };
export type PlotsReply = { id: number; html: string } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('dashboardPlotsWorker.ts must run as a worker thread');

port.on('message', (m: PlotsRequest) => {
  renderDashboardPage(m.data, m.title).then(
    (html) => port.postMessage({ id: m.id, html } satisfies PlotsReply),
    (err: unknown) => port.postMessage({ id: m.id, error: (err as Error).message } satisfies PlotsReply),
  );
});
