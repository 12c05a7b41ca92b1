import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { spawnWorker } from '../../../lib/threads/spawnWorker';

/**
 * A kernel computes units from … to − 1 of a seeded resampling computation (usually bootstrap replicates)
 * into `out` (unit u at out[u·width …]). Each unit must enter its random stream at its own position
 * (mulberry32StateAfter), never carry state from the unit before, so that any split of the units gives
 * the bytes one sequential pass gives.
 */
export type ReplicateKernel<P> = (plan: P, seed: number, from: number, to: number, out: Float64Array) => void;

/** The kernels worker threads can run (kernels.ts maps each name to its function). */
export type KernelName = 'quartileDifference' | 'resampledMeans' | 'spearman' | 'stratifiedPermutation';

/** A kernel's input: flat typed arrays and numbers only (shared with the worker threads without copying). */
export type KernelPlan = Record<string, Int32Array | Uint32Array | Float64Array | number>;

export interface ReplicateThreads {
  /** Threads that compute (the calling thread included); 1 = no worker threads. */
  threads: number;
  /** Below this many random draws in a job, the calling thread does it alone. */
  minDraws: number;
}

const threadsSetting = z.coerce.number().int().min(1).max(64);

/** The thread count ANALYSIS_THREADS asks for (1–64), else the machine's cores up to 4. */
export function threadsFromEnvironment(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return Math.max(1, Math.min(4, availableParallelism()));
  const parsed = threadsSetting.safeParse(raw);
  if (!parsed.success) throw new Error(`ANALYSIS_THREADS: ${parsed.error.issues[0]!.message} (got "${raw}"; a whole number of threads, 1–64)`);
  return parsed.data;
}

let settings: ReplicateThreads | null = null;

/** The thread settings in force (read from the environment on first use). */
export function replicateThreads(): ReplicateThreads {
  return (settings ??= { threads: threadsFromEnvironment(process.env.ANALYSIS_THREADS), minDraws: 4_000_000 });
}

/** Changes the thread settings (tests force the threaded path on small inputs with minDraws 0). */
export function configureReplicateThreads(next: Partial<ReplicateThreads>): void {
  settings = { ...replicateThreads(), ...next };
  if (pool && pool.length !== settings.threads - 1) stopReplicateWorkers();
}

// control words of a job (an Int32Array over a SharedArrayBuffer)
export const NEXT = 0; // first unit not yet claimed
export const DONE = 1; // units finished
export const FAILED = 2; // 1 when a worker's kernel threw on chunk FAILED_FROM … FAILED_TO (2 while it writes them)
export const FAILED_FROM = 3;
export const FAILED_TO = 4;
export const CONTROL_WORDS = 5;

export interface ReplicateJob {
  kernel: KernelName;
  plan: KernelPlan;
  seed: number;
  units: number;
  chunk: number;
  control: Int32Array;
  out: Float64Array;
}

/** Claims chunks of the job's units until none is left (run by the calling thread and by every worker). */
export function workOn<P>(job: ReplicateJob, kernel: ReplicateKernel<P>): number {
  let units = 0;
  for (;;) {
    const from = Atomics.add(job.control, NEXT, job.chunk);
    if (from >= job.units) return units;
    const to = Math.min(job.units, from + job.chunk);
    kernel(job.plan as P, job.seed, from, to, job.out);
    units += to - from;
    Atomics.add(job.control, DONE, to - from);
    Atomics.notify(job.control, DONE);
  }
}

let pool: Worker[] | null = null;
let lastRun: { units: number; byCallingThread: number } | null = null;

/** How the last threaded job was shared: its units, and how many of them the calling thread computed. */
export function lastThreadedRun(): { units: number; byCallingThread: number } | null {
  return lastRun;
}

function workers(count: number): Worker[] {
  if (pool && pool.length === count) return pool;
  stopReplicateWorkers();
  pool = Array.from({ length: count }, () => {
    const worker = spawnWorker(new URL('./replicateWorker.ts', import.meta.url));
    worker.unref(); // an idle pool never keeps the process alive
    worker.on('error', () => stopReplicateWorkers());
    return worker;
  });
  return pool;
}

/** The worker threads (started now if they are not yet), none with one thread: for other work to share with them. */
export function replicateWorkerPool(): readonly Worker[] {
  const { threads } = replicateThreads();
  return threads > 1 ? workers(threads - 1) : [];
}

/** Ends the worker threads (they are started again when needed). */
export function stopReplicateWorkers(): void {
  const old = pool;
  pool = null;
  for (const worker of old ?? []) void worker.terminate();
}

function shared<T extends Int32Array | Uint32Array | Float64Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Ctor(new SharedArrayBuffer(a.byteLength));
  copy.set(a as never);
  return copy;
}

/**
 * Runs `units` units of `kernel` (registered under `name` in kernels.ts, so worker threads can find it)
 * and returns their `width` outputs each, unit after unit. Small jobs (fewer than minDraws random draws,
 * `drawsPerUnit` each) run on the calling thread; larger ones are split into chunks that the calling
 * thread and the worker threads claim from a shared counter, so a busy or still-starting worker simply
 * takes fewer. The calling thread blocks (Atomics.wait) until every chunk is done, so callers stay
 * synchronous. The result does not depend on the thread count.
 */
export function runReplicates<P extends KernelPlan>(
  name: KernelName,
  kernel: ReplicateKernel<P>,
  plan: P,
  seed: number,
  units: number,
  width: number,
  drawsPerUnit: number,
): Float64Array {
  return startReplicates(name, kernel, plan, seed, units, width, drawsPerUnit).join();
}

/** A job handed to the worker threads; join() takes the chunks nobody has claimed yet and waits for the rest. */
export interface PendingReplicates {
  join(): Float64Array;
}

/**
 * runReplicates in two halves: the worker threads start on the job now, the calling thread goes on with
 * other work and joins later (a worker busy with this job leaves later jobs to the others, so nothing
 * waits on it). A job too small for threads is computed at join().
 */
export function startReplicates<P extends KernelPlan>(
  name: KernelName,
  kernel: ReplicateKernel<P>,
  plan: P,
  seed: number,
  units: number,
  width: number,
  drawsPerUnit: number,
): PendingReplicates {
  const { threads, minDraws } = replicateThreads();
  if (threads <= 1 || units <= 1 || units * drawsPerUnit < minDraws) {
    return {
      join: () => {
        const out = new Float64Array(units * width);
        kernel(plan, seed, 0, units, out);
        return out;
      },
    };
  }
  const sharedPlan = Object.fromEntries(Object.entries(plan).map(([k, v]) => [k, typeof v === 'number' ? v : shared(v)])) as P;
  const job: ReplicateJob = {
    kernel: name,
    plan: sharedPlan,
    seed,
    units,
    // about eight chunks a thread: enough to even out a thread the machine slows down
    chunk: Math.max(1, Math.ceil(units / (threads * 8))),
    control: new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4)),
    out: new Float64Array(new SharedArrayBuffer(units * width * 8)),
  };
  for (const worker of workers(threads - 1)) worker.postMessage(job);
  let result: Float64Array | null = null;
  return {
    join: () => (result ??= finish(job, kernel)),
  };
}

function finish<P>(job: ReplicateJob, kernel: ReplicateKernel<P>): Float64Array {
  const mine = workOn(job, kernel);
  lastRun = { units: job.units, byCallingThread: mine };
  for (;;) {
    const done = Atomics.load(job.control, DONE);
    if (done >= job.units) break;
    if (Atomics.load(job.control, FAILED) === 1) {
      // a worker's kernel threw on its chunk (that worker takes no more work): compute the chunk here,
      // where it throws again with a stack the caller sees
      const from = Atomics.load(job.control, FAILED_FROM);
      const to = Atomics.load(job.control, FAILED_TO);
      Atomics.store(job.control, FAILED, 0);
      Atomics.notify(job.control, FAILED);
      kernel(job.plan as P, job.seed, from, to, job.out);
      Atomics.add(job.control, DONE, to - from);
      continue;
    }
    Atomics.wait(job.control, DONE, done, 1000);
  }
  return job.out;
}
