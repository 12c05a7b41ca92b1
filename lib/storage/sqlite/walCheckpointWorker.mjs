// @ts-check
/**
 * The WAL checkpoint worker thread, started by walCheckpointer.ts. It opens its own connection to the
 * server's SQLite file and runs `PRAGMA wal_checkpoint(PASSIVE)` on a timer, so the fsyncs a checkpoint
 * needs (WAL file, then database file) happen on this thread and never on the server's event loop.
 * PASSIVE takes no lock that the server's connection waits for: commits keep appending to the WAL
 * while a checkpoint copies older frames into the database file.
 *
 * It touches nothing but checkpoints: no migrations, no writes, no other pragmas that change the file.
 * JavaScript checked by tsc against walCheckpointProtocol.ts, so that it starts without tsx (see there).
 *
 * @import { CheckpointRow, CheckpointWorkerData, CheckpointWorkerToMain, MainToCheckpointWorker } from './walCheckpointProtocol'
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('walCheckpointWorker.mjs must run as a worker thread');
const { file, intervalMs } = /** @type {{ data: CheckpointWorkerData }} */ (workerData).data;

/**
 * Runs `fn`; what it throws is rethrown as a plain Error. The worker's uncaught exception reaches the
 * main thread's 'error' event by structured clone, which keeps only `code` of better-sqlite3's SqliteError.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
const withPlainErrors = (fn) => {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof Error)) throw new Error(String(err));
    const code = /** @type {{ code?: unknown }} */ (err).code;
    throw new Error(typeof code === 'string' ? `${err.message} (${code})` : err.message);
  }
};

const db = withPlainErrors(() => {
  // fileMustExist: a missing file is an error here, never a fresh empty database.
  const connection = new Database(file, { fileMustExist: true });
  // Same settings as openDatabase (database.ts) where they matter to a checkpoint: synchronous=NORMAL
  // makes the checkpoint fsync the WAL before and the database file after copying; the busy timeout only
  // applies to opening, since PASSIVE never waits for a lock.
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  // Reading journal_mode reads the file header: a file that is not a database throws SQLITE_NOTADB here.
  const mode = connection.pragma('journal_mode', { simple: true });
  if (mode !== 'wal') throw new Error(`${file} is not in WAL mode (journal_mode=${String(mode)}); nothing to checkpoint`);
  return connection;
});

const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const dataVersion = db.prepare('PRAGMA data_version').pluck();

/** @param {CheckpointWorkerToMain} message */
const post = (message) => port.postMessage(message);

/** @type {CheckpointRow} */
let previous = { busy: 0, log: 0, checkpointed: 0 };
let versionAfterPrevious = /** @type {number} */ (dataVersion.get());

/**
 * How many frames this checkpoint copied. SQLite reports the WAL's size and how much of it is backfilled,
 * not what one call did, and the next commit after a checkpoint that caught up starts the WAL over from
 * frame 1 (when no reader is in it). So a checkpoint that follows one that caught up, with commits in
 * between (data_version changed), counts from the start of the new WAL. A statistic, not bookkeeping:
 * exact while this worker is the only checkpointer, except for commits landing in the microseconds
 * between a checkpoint and its data_version reads, or a reader in another process that keeps the WAL
 * from starting over. The first checkpoint counts every backfilled frame of the WAL it finds.
 * @param {CheckpointRow} row
 * @param {boolean} committedSince
 * @returns {number}
 */
const framesCopiedBy = (row, committedSince) => {
  const startedOver =
    row.log < previous.log || row.checkpointed < previous.checkpointed || (committedSince && previous.checkpointed === previous.log);
  return startedOver ? row.checkpointed : row.checkpointed - previous.checkpointed;
};

/** @returns {{ row: CheckpointRow, committedDuring: boolean }} */
const runCheckpoint = () =>
  withPlainErrors(() => {
    const versionBefore = /** @type {number} */ (dataVersion.get());
    const committedSince = versionBefore !== versionAfterPrevious;
    const started = performance.now();
    const row = /** @type {CheckpointRow} */ (checkpoint.get());
    const ms = performance.now() - started;
    versionAfterPrevious = /** @type {number} */ (dataVersion.get());
    // Another connection checkpointing at this moment: SQLite reports busy with -1 for both counts.
    const framesCopied = row.log < 0 ? 0 : framesCopiedBy(row, committedSince);
    if (row.log >= 0) previous = row;
    post({ type: 'checkpoint', framesCopied, walFrames: row.log, backfilledFrames: row.checkpointed, busy: row.busy !== 0, ms });
    return { row, committedDuring: versionAfterPrevious !== versionBefore };
  });

/** Passes one tick may add to catch up with the WAL's end (each copies what commits added during the last). */
const MAX_CATCH_UP_PASSES = 16;

/**
 * One checkpoint, then more while commits landed during the last one: only a commit that begins after a
 * checkpoint has copied the whole WAL starts the WAL over. Under steady load one pass a second never got
 * there (commits land while it copies and fsyncs), so the WAL grew without bound (343 MB in a 30 s,
 * 500-participant bench) and every commit appended to new blocks of the file, which costs the committing
 * thread 2–3× the CPU of rewriting blocks already in the page cache (ext4 zeroes each new block first).
 */
const checkpointAndCatchUp = () => {
  for (let pass = 0; pass < MAX_CATCH_UP_PASSES; pass++) {
    const { row, committedDuring } = runCheckpoint();
    if (row.log < 0 || !committedDuring) return;
  }
};

// An exception thrown by a checkpoint is uncaught on purpose: the worker ends with it, and the main
// thread falls back to SQLite's own checkpoints.
const timer = setInterval(checkpointAndCatchUp, intervalMs);

port.on('message', (/** @type {MainToCheckpointWorker} */ message) => {
  if (message.type !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close(); // nothing is left on this thread's event loop: the worker exits
});

post({ type: 'ready' });
