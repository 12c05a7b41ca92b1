import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./boot.mjs', import.meta.url);

/**
 * Starts a worker thread running `module` (a file URL, usually `new URL('./x.ts', import.meta.url)`). The module
 * reads its own settings from `workerData.data`. A TypeScript module starts through the boot file, which registers
 * tsx in the thread first (~300 ms of CPU); a JavaScript one (.mjs, checked with // @ts-check) starts as it is.
 */
export function spawnWorker(module: URL, data: unknown = null, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  const workerData = { module: module.href, data };
  return new Worker(/\.m?js$/.test(module.pathname) ? module : BOOT, { ...options, workerData });
}
