import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from './database';
import { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from './walCheckpointer';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const temps: string[] = [];
const checkpointers: WalCheckpointer[] = [];
const databases: SqliteDatabase[] = [];
afterEach(async () => {
  for (const c of checkpointers.splice(0)) await c.stop();
  for (const db of databases.splice(0)) if (db.open) db.close();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-wal-'));
  temps.push(d);
  return d;
}

/** A database as the server opens it (openDatabase: WAL, synchronous=NORMAL), with one table. */
function freshDatabase(): { db: SqliteDatabase; file: string; dir: string } {
  const dir = tempDir();
  const file = path.join(dir, 'tandem.sqlite');
  const db = openDatabase(file);
  databases.push(db);
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { db, file, dir };
}

/** A real pino logger whose lines the test can read. */
function capturingLogger(): { log: Logger; lines: Array<{ level: number; msg: string; err?: { message: string } }> } {
  const lines: Array<{ level: number; msg: string; err?: { message: string } }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

function start(db: SqliteDatabase, file: string, options: WalCheckpointerOptions): WalCheckpointer {
  const checkpointer = startWalCheckpointer(db, file, options);
  checkpointers.push(checkpointer);
  return checkpointer;
}

const body = (id: number, bytes = 2000): string => `note ${id} `.padEnd(bytes, String.fromCharCode(97 + (id % 26)));

/** Commits `count` rows, one transaction each (each commit appends its own frames to the WAL). */
function commitRows(db: SqliteDatabase, firstId: number, count: number, bytes = 2000): void {
  const insert = db.prepare('INSERT INTO notes (id, body) VALUES (?, ?)');
  for (let id = firstId; id < firstId + count; id++) insert.run(id, body(id, bytes));
}

const autocheckpoint = (db: SqliteDatabase): unknown => db.pragma('wal_autocheckpoint', { simple: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; the deadline only turns a hang into a readable failure, so it is generous (a busy box slows the worker's checkpoints; the test timeout is 60 s). */
async function waitFor(what: string, condition: () => boolean, deadlineMs = 45_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

/**
 * Rows found in the database file alone, i.e. what checkpoints have copied out of the WAL. Reads a copy
 * (without its WAL); a copy taken while a checkpoint writes may be torn, which counts as "not yet".
 */
function rowsInDatabaseFileAlone(file: string, dir: string): number {
  const copy = path.join(dir, `copy-${Date.now()}-${Math.random()}.sqlite`);
  fs.copyFileSync(file, copy);
  try {
    const db = openDatabase(copy);
    try {
      return db.prepare('SELECT count(*) FROM notes').pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return -1;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(copy + suffix, { force: true });
  }
}

describe('startWalCheckpointer', () => {
  it('checkpoints on the worker: rows committed on the main connection reach the database file, which it never checkpoints itself', async () => {
    const { db, file, dir } = freshDatabase();
    const checkpointer = start(db, file, { startAtWalBytes: 0, intervalMs: 20 });
    await waitFor('the worker to be ready', () => checkpointer.stats().state === 'running');
    expect(autocheckpoint(db)).toBe(0);
    const sizeBefore = fs.statSync(file).size;

    commitRows(db, 1, 1500); // ~3 MB, ~1500 frames: more than one autocheckpoint's worth

    await waitFor('the database file alone to hold every row', () => rowsInDatabaseFileAlone(file, dir) === 1500);
    // The worker reports its figures after the checkpoint itself, in a message of its own.
    await waitFor('the worker to report its checkpoints', () => checkpointer.stats().framesCopied >= 1500);
    expect(fs.statSync(file).size).toBeGreaterThanOrEqual(sizeBefore + 1500 * 2000);
    const stats = checkpointer.stats();
    expect(stats.state).toBe('running');
    expect(stats.checkpoints).toBeGreaterThan(0);
    expect(stats.framesCopied).toBeGreaterThanOrEqual(1500);
    expect(stats.slowestCheckpointMs).toBeGreaterThan(0);
    expect(stats.workerStartMs).not.toBeNull();
    expect(autocheckpoint(db)).toBe(0); // the main connection stayed out of it all along
  });

  it('keeps the WAL small under steady commits: checkpoints catch up with them, so the WAL starts over', async () => {
    const { db, file } = freshDatabase();
    const checkpointer = start(db, file, { startAtWalBytes: 0, intervalMs: 100 });
    await waitFor('the worker to be ready', () => checkpointer.stats().state === 'running');
    // A commit every few ms for 3 s, as a loaded server makes them. One pass per interval copied what it found,
    // and the commits that landed while it copied and fsynced seldom let the WAL start over: it grew to 2.2–4.1 MB
    // here against ~2.7 MB of rows (a 4 KiB page per commit; 343 MB in a 30 s bench at 500 participants).
    // Catching up, it stays near one interval's worth (~0.4 MB here).
    const insert = db.prepare('INSERT INTO notes (id, body) VALUES (?, ?)');
    let id = 0;
    let largestWal = 0;
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      insert.run(++id, body(id));
      if (id % 50 === 0) largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
      await sleep(2);
    }
    expect(id).toBeGreaterThan(400); // enough commits for the bound below to mean something
    // Each commit appends at least one 4 KiB page to the WAL (a frame: the page and a 24-byte header), so a WAL that
    // never started over would hold at least that much. Started over, the file is rewritten from its start and holds
    // a fraction of it. The bound is against what the commits wrote, not against the wall clock: under the suite's
    // load there are fewer commits and slower checkpoints (a clean-clone CI run, 2026-12-06: 1084 commits, largest
    // WAL 1.10 MB, 0.25 of the bound's reference; 0.13 on a quiet box). One pass per interval, as before, leaves a
    // WAL of 1.95–1.99 times it (3 runs, 2026-12-06).
    const walBytesWritten = id * (4096 + 24);
    expect(largestWal).toBeLessThan(walBytesWritten / 2);
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(walBytesWritten / 2);
    expect(db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: id });
  });

  it('keeps every row committed while checkpoints run, through stop, close and reopen', async () => {
    const { db, file } = freshDatabase();
    const checkpointer = start(db, file, { startAtWalBytes: 0, intervalMs: 5 });
    await waitFor('the worker to be ready', () => checkpointer.stats().state === 'running');
    // Batches with pauses in between, so commits and checkpoints interleave.
    for (let batch = 0; batch < 20; batch++) {
      commitRows(db, batch * 50 + 1, 50);
      await sleep(5);
    }
    db.prepare('UPDATE notes SET body = ? WHERE id = 1').run('edited');
    db.prepare('DELETE FROM notes WHERE id = 2').run();
    expect(checkpointer.stats().checkpoints).toBeGreaterThan(0);

    await checkpointer.stop();
    expect(autocheckpoint(db)).toBe(1000);
    db.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false); // the last connection's close checkpointed as usual

    const reopened = openDatabase(file);
    databases.push(reopened);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = reopened.prepare('SELECT id, body FROM notes ORDER BY id').all() as Array<{ id: number; body: string }>;
    expect(rows).toHaveLength(999);
    expect(rows[0]).toEqual({ id: 1, body: 'edited' });
    const expected = Array.from({ length: 998 }, (_, i) => ({ id: i + 3, body: body(i + 3) }));
    expect(rows.slice(1)).toEqual(expected);
  });

  it('sets wal_autocheckpoint to 0 while the worker runs and back to 1000 on stop(), which is idempotent', async () => {
    const { db, file } = freshDatabase();
    const { log, lines } = capturingLogger();
    expect(autocheckpoint(db)).toBe(1000);
    const checkpointer = start(db, file, { startAtWalBytes: 0, intervalMs: 20, log });
    await waitFor('the worker to be ready', () => checkpointer.stats().state === 'running');
    expect(autocheckpoint(db)).toBe(0);

    const first = checkpointer.stop();
    expect(checkpointer.stop()).toBe(first);
    await first;
    await checkpointer.stop();
    expect(checkpointer.stats().state).toBe('stopped');
    expect(autocheckpoint(db)).toBe(1000);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]); // the worker stopped when asked, not by terminate
  });

  it('falls back to the connection’s own checkpoints when the worker cannot open the file', async () => {
    const { db, dir } = freshDatabase();
    const notADatabase = path.join(dir, 'notes.txt');
    fs.writeFileSync(notADatabase, 'this is not an SQLite database, '.repeat(200));
    const { log, lines } = capturingLogger();

    const checkpointer = start(db, notADatabase, { startAtWalBytes: 0, intervalMs: 20, log });
    await waitFor('the worker to fail', () => checkpointer.stats().state === 'failed');

    expect(autocheckpoint(db)).toBe(1000);
    const warning = lines.find((l) => l.level === 40);
    expect(warning?.msg).toMatch(/WAL checkpoint worker failed; the server's connection checkpoints the WAL itself again/);
    expect(warning?.err?.message).toMatch(/not a database/);
    await checkpointer.stop(); // stop after a failure is harmless
    expect(autocheckpoint(db)).toBe(1000);
  });

  it('falls back when a running worker dies, and the connection then checkpoints by itself again', async () => {
    const { db, file, dir } = freshDatabase();
    const { log, lines } = capturingLogger();
    const checkpointer = start(db, file, { startAtWalBytes: 0, intervalMs: 20, log });
    await waitFor('the worker to be ready', () => checkpointer.stats().state === 'running');
    expect(autocheckpoint(db)).toBe(0);

    await checkpointer.crashWorkerForTests();
    await waitFor('the failure to be noticed', () => checkpointer.stats().state === 'failed');
    expect(autocheckpoint(db)).toBe(1000);
    expect(lines.some((l) => l.level === 40 && /stopped unexpectedly/.test(l.msg))).toBe(true);

    // More than 1000 pages of commits: SQLite's autocheckpoint (back on) copies them to the database file.
    const sizeBefore = fs.statSync(file).size;
    commitRows(db, 1, 1200, 3500);
    expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 1000 * 3500);
    expect(rowsInDatabaseFileAlone(file, dir)).toBeGreaterThan(0);
  });

  it('starts the worker only once the WAL file reaches startAtWalBytes', async () => {
    const { db, file } = freshDatabase();
    const checkpointer = start(db, file, { startAtWalBytes: 512 * 1024, intervalMs: 10 });
    expect(checkpointer.stats().state).toBe('waiting');
    await sleep(100); // ten size checks of a small WAL
    expect(checkpointer.stats().state).toBe('waiting');
    expect(autocheckpoint(db)).toBe(1000);

    commitRows(db, 1, 300); // ~600 KB of frames
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThanOrEqual(512 * 1024);
    await waitFor('the worker to start and be ready', () => checkpointer.stats().state === 'running');
    expect(autocheckpoint(db)).toBe(0);
    await checkpointer.stop();
    expect(autocheckpoint(db)).toBe(1000);
  });

  it('stops without ever starting a worker while it waits', async () => {
    const { db, file } = freshDatabase();
    const checkpointer = start(db, file, { intervalMs: 10 });
    await checkpointer.stop();
    commitRows(db, 1, 300);
    await sleep(50); // a size check would have started a worker by now
    expect(checkpointer.stats()).toMatchObject({ state: 'stopped', workerStartMs: null, checkpoints: 0 });
  });

  it('rejects what it cannot checkpoint', () => {
    const memory = openDatabase(':memory:');
    databases.push(memory);
    expect(() => startWalCheckpointer(memory, ':memory:')).toThrow(/in-memory database/);

    const dir = tempDir();
    const rollbackJournal = openDatabase(path.join(dir, 'delete.sqlite'));
    databases.push(rollbackJournal);
    rollbackJournal.pragma('journal_mode = DELETE');
    expect(() => startWalCheckpointer(rollbackJournal, path.join(dir, 'delete.sqlite'))).toThrow(/not in WAL mode \(journal_mode=delete\)/);

    const { db, file } = freshDatabase();
    expect(() => startWalCheckpointer(db, file, { intervalMs: 0 })).toThrow(/intervalMs must be a positive number/);
    expect(() => startWalCheckpointer(db, file, { startAtWalBytes: -1 })).toThrow(/startAtWalBytes/);
    db.close();
    expect(() => startWalCheckpointer(db, file)).toThrow(/connection is closed/);
  });

  it('never keeps the process alive: a process with a running worker exits by itself, and after stop() + close the WAL is gone', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'run.mts');
    fs.writeFileSync(
      script,
      `
import { openDatabase } from ${JSON.stringify(path.join(REPO, 'lib/storage/sqlite/database.ts'))};
import { startWalCheckpointer } from ${JSON.stringify(path.join(REPO, 'lib/storage/sqlite/walCheckpointer.ts'))};
const [file, mode] = process.argv.slice(2);
const db = openDatabase(file);
db.exec('CREATE TABLE t (x)');
const checkpointer = startWalCheckpointer(db, file, { startAtWalBytes: 0, intervalMs: 10 });
while (checkpointer.stats().state === 'starting') await new Promise((resolve) => setTimeout(resolve, 5));
db.exec("INSERT INTO t VALUES ('committed')");
console.log(checkpointer.stats().state);
if (mode === 'stop') {
  await checkpointer.stop();
  db.close();
}
// mode 'leave': neither stop() nor close(); only the (unref'd) worker is left
`,
    );
    const run = (file: string, mode: 'leave' | 'stop') =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, ['--import', 'tsx', script, file, mode], { cwd: REPO, timeout: 30_000 }, (_err, stdout, stderr) =>
          resolve({ code: child.exitCode, stdout, stderr }),
        );
      });

    const left = await run(path.join(dir, 'left.sqlite'), 'leave');
    expect(left.stderr).toBe('');
    expect(left).toMatchObject({ code: 0, stdout: 'running\n' });

    const stopped = await run(path.join(dir, 'stopped.sqlite'), 'stop');
    expect(stopped).toMatchObject({ code: 0, stdout: 'running\n', stderr: '' });
    expect(fs.existsSync(path.join(dir, 'stopped.sqlite-wal'))).toBe(false);
    const reopened = openDatabase(path.join(dir, 'stopped.sqlite'));
    databases.push(reopened);
    expect(reopened.prepare('SELECT x FROM t').pluck().all()).toEqual(['committed']);
  });
});
