import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { DashboardData, PilotFilter } from '../../common/adminSessionList';
import { spawnWorker } from '../../lib/threads/spawnWorker';
import type { PlotsReply, PlotsRequest } from './dashboardPlotsWorker';

const WORKER_MODULE = new URL('./dashboardPlotsWorker.ts', import.meta.url);

/** A page whose data version still holds is served again for this long (quality from a judge run has no version). */
export const PLOTS_CACHE_MAX_AGE_MS = 60_000;
/** Under continuous traffic (the version changes every poll) a page this young is served anyway. */
export const PLOTS_CACHE_MIN_AGE_MS = 5_000;

interface Entry {
  version: string;
  at: number;
  html: Promise<string>;
}

/**
 * The dashboard's plots page, per study and pilot filter: rendered on a worker thread (vega's SVG rendering took
 * 0.8–1.8 s of the event loop at 10k sessions, stalling /healthz and every participant) and cached per data
 * version (the newest trajectory event id), so the dashboards that poll every 5 s share one render. Concurrent
 * requests for one key wait for the same render. `load` reads the data only when a page is rendered.
 */
export class DashboardPlotsRenderer {
  private readonly cache = new Map<string, Entry>();
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(html: string): void; reject(err: Error): void }>();
  /** Pages rendered (tests and the benchmark read it). */
  renders = 0;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async page(studyId: string, pilot: PilotFilter, version: string, load: () => Promise<{ data: DashboardData; title: string }>): Promise<string> {
    const key = `${studyId}\u0000${pilot}`;
    const at = this.now();
    const hit = this.cache.get(key);
    if (hit && at - hit.at < (hit.version === version ? PLOTS_CACHE_MAX_AGE_MS : PLOTS_CACHE_MIN_AGE_MS)) return hit.html;
    const html = load().then(({ data, title }) => this.render(data, title));
    this.cache.set(key, { version, at, html });
    // A failed render is not kept: the next request tries again.
    html.catch(() => {
      if (this.cache.get(key)?.html === html) this.cache.delete(key);
    });
    return html;
  }

  /** Renders one page on the worker (started on first use). */
  render(data: DashboardData, title: string): Promise<string> {
    this.renders++;
    const worker = this.workerThread();
    const id = ++this.nextId;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, data, title } satisfies PlotsRequest);
    });
  }

  close(): Promise<number> | undefined {
    const worker = this.worker;
    this.worker = undefined;
    return worker?.terminate();
  }

  private workerThread(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(WORKER_MODULE);
    worker.unref(); // never keeps a stopping server alive
    worker.on('message', (m: PlotsReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('html' in m) p.resolve(m.html);
      else p.reject(new Error(`dashboard plots: ${m.error}`));
    });
    worker.on('error', (err) => {
      this.log.error({ err }, 'dashboard plots worker failed; the next request starts another');
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}
