/**
 * WAL checkpoints off the server's event loop.
 *
 * With WAL and synchronous=NORMAL a commit never fsyncs; a checkpoint does (the WAL, then the database
 * file), and SQLite runs it inside whichever commit pushes the WAL past wal_autocheckpoint (1000 pages),
 * on the thread that committed. On the server that is the event loop: under load one such fsync took
 * ~100 ms and every participant's socket traffic waited for it.
 *
 * `startWalCheckpointer` moves them to a worker thread (walCheckpointWorker.mjs) with its own connection
 * to the same file, running `wal_checkpoint(PASSIVE)` every `intervalMs`; once the worker is ready, the
 * server's connection gets wal_autocheckpoint = 0. The worker is JavaScript checked against
 * walCheckpointProtocol.ts, so it starts without tsx: 66–79 ms of CPU, ready in 58–72 ms, against 300–440 ms
 * and 210–306 ms as TypeScript booted through tsx (plain node, 3 starts each, 2-core box, 2026-12-06). It
 * still starts lazily, when the WAL file first reaches `startAtWalBytes` (checked with fs.stat on the same
 * interval): the ~150 servers of the test suite mostly never get there.
 * Until the worker is ready, and for good after it fails or stops, the connection checkpoints itself
 * as before, so the WAL never grows without bound.
 *
 * Left on the event loop: the first commit after a checkpoint that caught up starts the WAL over and
 * fsyncs its 32-byte header (SQLite does that in the committing connection, to stay crash-safe). The
 * worker catches up with steady commits (walCheckpointWorker.mjs), so under load this happens every few
 * seconds: at 500 participants, 3 such fsyncs in 10 s of 0.4–0.7 ms each (strace, 2026-12-04).
 */
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createLogger } from '../../logger';
import { spawnWorker } from '../../threads/spawnWorker';
import type { SqliteDatabase } from './database';
import type { CheckpointWorkerData, CheckpointWorkerToMain, MainToCheckpointWorker } from './walCheckpointProtocol';

const WORKER_MODULE = new URL('./walCheckpointWorker.mjs', import.meta.url);

/** SQLite's default wal_autocheckpoint (pages), restored when the connection had none. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export interface WalCheckpointerOptions {
  /** How often the worker checkpoints (and, before it starts, how often the WAL's size is checked). Default 1000. */
  intervalMs?: number;
  /**
   * Start the worker once the WAL file is at least this big. Default 1 MiB: a quarter of the ~4 MiB at
   * which the connection's own autocheckpoint (1000 pages) would fsync on the event loop. 0 = at once.
   */
  startAtWalBytes?: number;
  /** How long stop() lets the worker finish a checkpoint in progress before terminating it. Default 2000. */
  stopTimeoutMs?: number;
  log?: Logger;
}

/**
 * - waiting: the WAL is below startAtWalBytes, the connection checkpoints itself
 * - starting: the worker is loading; the connection still checkpoints itself
 * - running: the worker checkpoints; the connection's wal_autocheckpoint is 0
 * - failed: the worker could not start or died; the connection checkpoints itself again (for good)
 * - stopped: stop() was called; the connection checkpoints itself again
 */
export type WalCheckpointerState = 'waiting' | 'starting' | 'running' | 'failed' | 'stopped';

/** Figures for BENCHMARKS: what the worker did, and what it cost it (never the event loop). */
export interface WalCheckpointerStats {
  state: WalCheckpointerState;
  /** Worker start to ready (ms), once it started. */
  workerStartMs: number | null;
  /** wal_checkpoint(PASSIVE) calls the worker ran (including ones with nothing to do). */
  checkpoints: number;
  /** WAL frames (pages) copied into the database file, summed over checkpoints. */
  framesCopied: number;
  /** Checkpoints another connection's checkpoint kept from running. */
  busyCheckpoints: number;
  /** Time spent in checkpoints (worker thread), total and slowest single one. */
  checkpointMsTotal: number;
  slowestCheckpointMs: number;
  /** The last checkpoint's view of the WAL: its size and how much of it is in the database file. */
  walFrames: number;
  backfilledFrames: number;
}

export interface WalCheckpointer {
  /**
   * Ends the worker (waits up to stopTimeoutMs for a checkpoint in progress, then terminates it) and gives
   * checkpoints back to the connection, so that its close() checkpoints as usual. Idempotent; never throws.
   */
  stop(): Promise<void>;
  stats(): WalCheckpointerStats;
  /** Tests: kills the worker as a crash would. */
  crashWorkerForTests(): Promise<void>;
}

/**
 * Moves `db`'s WAL checkpoints to a worker thread (see the file comment). `file` is the path `db` was
 * opened with. Throws if `db` is not an open WAL database on a file.
 */
export function startWalCheckpointer(db: SqliteDatabase, file: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const intervalMs = options.intervalMs ?? 1000;
  const startAtWalBytes = options.startAtWalBytes ?? 1024 * 1024;
  const stopTimeoutMs = options.stopTimeoutMs ?? 2000;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`intervalMs must be a positive number, got ${intervalMs}`);
  if (!Number.isFinite(startAtWalBytes) || startAtWalBytes < 0) throw new RangeError(`startAtWalBytes must be a number >= 0, got ${startAtWalBytes}`);
  if (!Number.isFinite(stopTimeoutMs) || stopTimeoutMs < 0) throw new RangeError(`stopTimeoutMs must be a number >= 0, got ${stopTimeoutMs}`);
  if (!db.open) throw new Error('startWalCheckpointer: the database connection is closed');
  if (db.memory || file === ':memory:' || file === '') throw new Error('startWalCheckpointer: an in-memory database has no WAL to checkpoint');
  const mode = db.pragma('journal_mode', { simple: true });
  if (mode !== 'wal') throw new Error(`startWalCheckpointer: ${file} is not in WAL mode (journal_mode=${String(mode)})`);
  return new WorkerCheckpointer(db, file, intervalMs, startAtWalBytes, stopTimeoutMs, options.log ?? createLogger());
}

class WorkerCheckpointer implements WalCheckpointer {
  private state: WalCheckpointerState = 'waiting';
  private worker: Worker | null = null;
  private sizeTimer: NodeJS.Timeout | null = null;
  private statInFlight = false;
  private stopping: Promise<void> | undefined;
  private readonly autocheckpointPages: number;
  private readonly counts: Omit<WalCheckpointerStats, 'state'> = {
    workerStartMs: null,
    checkpoints: 0,
    framesCopied: 0,
    busyCheckpoints: 0,
    checkpointMsTotal: 0,
    slowestCheckpointMs: 0,
    walFrames: 0,
    backfilledFrames: 0,
  };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly file: string,
    private readonly intervalMs: number,
    private readonly startAtWalBytes: number,
    private readonly stopTimeoutMs: number,
    private readonly log: Logger,
  ) {
    const current = Number(db.pragma('wal_autocheckpoint', { simple: true }));
    this.autocheckpointPages = current > 0 ? current : SQLITE_DEFAULT_AUTOCHECKPOINT;
    if (startAtWalBytes === 0) this.startWorker();
    else {
      this.sizeTimer = setInterval(() => this.checkWalSize(), intervalMs);
      this.sizeTimer.unref();
    }
  }

  stats(): WalCheckpointerStats {
    const c = this.counts;
    const tenths = (ms: number) => Math.round(ms * 10) / 10;
    return { state: this.state, ...c, checkpointMsTotal: tenths(c.checkpointMsTotal), slowestCheckpointMs: tenths(c.slowestCheckpointMs) };
  }

  stop(): Promise<void> {
    return (this.stopping ??= this.stopWorker());
  }

  async crashWorkerForTests(): Promise<void> {
    await this.worker?.terminate();
  }

  /** One cheap fs.stat per interval until the WAL is big enough to be worth a worker. */
  private checkWalSize(): void {
    if (this.statInFlight) return;
    this.statInFlight = true;
    fs.stat(`${this.file}-wal`, (err, stat) => {
      this.statInFlight = false;
      if (this.state !== 'waiting' || err) return; // no WAL file yet (ENOENT): keep waiting
      if (stat.size >= this.startAtWalBytes) this.startWorker();
    });
  }

  private startWorker(): void {
    this.clearSizeTimer();
    this.state = 'starting';
    const startedAt = performance.now();
    const data: CheckpointWorkerData = { file: this.file, intervalMs: this.intervalMs };
    let worker: Worker;
    try {
      worker = spawnWorker(WORKER_MODULE, data);
    } catch (err) {
      this.fail(err, 'could not start the WAL checkpoint worker');
      return;
    }
    this.worker = worker;
    worker.on('message', (message: CheckpointWorkerToMain) => {
      if (this.worker !== worker) return;
      if (message.type === 'ready') this.onReady(performance.now() - startedAt);
      else this.record(message);
    });
    worker.on('error', (err) => {
      if (this.worker === worker) this.fail(err, 'the WAL checkpoint worker failed');
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`exit code ${code}`), 'the WAL checkpoint worker stopped unexpectedly');
    });
    // A checkpoint worker alone never keeps the process alive. After the listeners: adding a 'message'
    // listener refs the worker again.
    worker.unref();
  }

  private onReady(startMs: number): void {
    if (this.state !== 'starting') return;
    if (!this.db.open) {
      void this.stop(); // the server closed its connection meanwhile: nothing left to checkpoint for
      return;
    }
    this.counts.workerStartMs = Math.round(startMs);
    this.db.pragma('wal_autocheckpoint = 0');
    this.state = 'running';
    this.log.info({ file: this.file, startMs: this.counts.workerStartMs, intervalMs: this.intervalMs }, 'WAL checkpoints run on a worker thread');
  }

  private record(message: Extract<CheckpointWorkerToMain, { type: 'checkpoint' }>): void {
    const c = this.counts;
    c.checkpoints += 1;
    if (message.busy) c.busyCheckpoints += 1;
    c.framesCopied += message.framesCopied;
    c.checkpointMsTotal += message.ms;
    c.slowestCheckpointMs = Math.max(c.slowestCheckpointMs, message.ms);
    if (message.walFrames >= 0) {
      c.walFrames = message.walFrames;
      c.backfilledFrames = message.backfilledFrames;
    }
  }

  /** The worker is gone for good: the connection checkpoints itself again. */
  private fail(err: unknown, message: string): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    const worker = this.worker;
    this.worker = null;
    this.state = 'failed';
    this.restoreAutocheckpoint();
    this.log.warn({ err, file: this.file }, `${message}; the server's connection checkpoints the WAL itself again`);
    void worker?.terminate(); // after 'error' it is exiting anyway
  }

  private async stopWorker(): Promise<void> {
    this.clearSizeTimer();
    const worker = this.worker;
    this.worker = null;
    this.state = 'stopped';
    if (worker) {
      worker.ref(); // let a process that awaits stop() wait for the worker's exit
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.stopTimeoutMs)));
      worker.postMessage({ type: 'stop' } satisfies MainToCheckpointWorker);
      const gaveUp = await Promise.race([exited.then(() => false), timedOut]);
      clearTimeout(timer);
      if (gaveUp) {
        this.log.warn({ file: this.file, stopTimeoutMs: this.stopTimeoutMs }, 'the WAL checkpoint worker did not stop in time; terminated');
        await worker.terminate();
      }
    }
    this.restoreAutocheckpoint();
  }

  private restoreAutocheckpoint(): void {
    // A server closing its store before stop() leaves nothing to restore; closing checkpointed anyway.
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${this.autocheckpointPages}`);
  }

  private clearSizeTimer(): void {
    if (this.sizeTimer) clearInterval(this.sizeTimer);
    this.sizeTimer = null;
  }
}
