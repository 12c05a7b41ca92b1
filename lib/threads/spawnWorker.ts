import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./boot.mjs', import.meta.url);

/**
 * Starts a worker thread running `module` (a file URL, usually `new URL('./x.ts', import.meta.url)`). The module
 * reads its own settings from `workerData.data`. A TypeScript module starts through the boot file, which registers
 * tsx in the thread first (~300 ms of CPU). A JavaScript one (.mjs, checked with // @ts-check) starts as it is, with
 * the process's node flags less its module loaders (unless `options.execArgv` says otherwise): under `tsx` (npm
 * start) the inherited `--require`/`--import` load tsx into the thread too, 137–141 ms of CPU to ready against
 * 35–43 ms without them (2026-12-06); other flags (`--cpu-prof`, `--enable-source-maps`) still apply.
 */
export function spawnWorker(module: URL, data: unknown = null, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  const workerData = { module: module.href, data };
  if (/\.m?js$/.test(module.pathname)) return new Worker(module, { execArgv: withoutLoaders(process.execArgv), ...options, workerData });
  return new Worker(BOOT, { ...options, workerData });
}

const LOADER_FLAGS = new Set(['--require', '-r', '--import', '--loader', '--experimental-loader']);

/** Node flags without the ones that load modules into every thread (`--import tsx`, as `--flag value` or `--flag=value`). */
export function withoutLoaders(flags: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (LOADER_FLAGS.has(flag)) i++; // and its value
    else if (!LOADER_FLAGS.has(flag.split('=')[0]!)) kept.push(flag);
  }
  return kept;
}
