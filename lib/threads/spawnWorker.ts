import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./boot.mjs', import.meta.url);

/**
 * Starts a worker thread running the TypeScript module `module` (a file URL, usually
 * `new URL('./x.ts', import.meta.url)`). The module reads its own settings from
 * `workerData.data`; `workerData.module` is taken by the boot file.
 */
export function spawnWorker(module: URL, data: unknown = null, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  return new Worker(BOOT, { ...options, workerData: { module: module.href, data } });
}
