import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./boot.mjs', import.meta.url);

/**
 * Starts a worker thread running `module` (a file URL, usually `new URL('./x.ts', import.meta.url)`). The module
 * reads its own settings from `workerData.data`. A TypeScript module starts through the boot file, which registers
 * tsx in the thread first (~300 ms of CPU). A JavaScript one (.mjs, checked with // @ts-check) starts as it is, and
 * without the process's node flags unless `options.execArgv` gives some: under `tsx` (npm start) those load tsx
 * into the thread too: 137–141 ms of CPU to ready against 35–43 ms without them (2026-12-06).
 */
export function spawnWorker(module: URL, data: unknown = null, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  const workerData = { module: module.href, data };
  if (/\.m?js$/.test(module.pathname)) return new Worker(module, { execArgv: [], ...options, workerData });
  return new Worker(BOOT, { ...options, workerData });
}
