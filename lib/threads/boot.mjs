// Entry of every Tandem worker thread (see spawnWorker.ts). Node 20 cannot load TypeScript by itself and
// worker threads do not inherit tsx's loader from the parent (neither under `tsx` nor under vitest), so
// the worker registers tsx first and then imports the TypeScript module it was started for.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
