/**
 * What the WAL checkpoint worker (walCheckpointWorker.mjs) and walCheckpointer.ts say to each other. The worker
 * is plain JavaScript, checked against these types (// @ts-check): a worker written in TypeScript needs tsx
 * registered inside it, ~300 ms of CPU at every start (measured on the 2-core box, 2026-12-06), and this one
 * starts in the middle of a study's first minutes.
 */

/** Settings the main thread passes (spawnWorker's `data`). */
export interface CheckpointWorkerData {
  /** Absolute path of the SQLite file (the one the server has open). */
  file: string;
  intervalMs: number;
}

export type MainToCheckpointWorker = { type: 'stop' };

export type CheckpointWorkerToMain =
  /** The connection is open and the file is a WAL database: the main connection may stop checkpointing. */
  | { type: 'ready' }
  /** One `wal_checkpoint(PASSIVE)`: the frames it copied into the database file, its row, and how long it took. */
  | { type: 'checkpoint'; framesCopied: number; walFrames: number; backfilledFrames: number; busy: boolean; ms: number };

/** A row of `PRAGMA wal_checkpoint(PASSIVE)`. */
export interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}
