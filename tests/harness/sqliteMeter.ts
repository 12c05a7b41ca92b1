/**
 * Where a process's event loop spends its time in SQLite, statement by statement, for bench runs
 * (`npm run bench:phases -- --sqlite-meter`). better-sqlite3 runs every statement synchronously on the calling
 * thread, so the wall time of `run`/`get`/`all`/`exec` is the loop's time in SQLite: the statement itself and,
 * for a COMMIT, writing its pages to the WAL, and each row's array of values. What it leaves out: building row
 * objects from those arrays (lib/storage/sqlite/rowReader.ts; before 2026-12-07 better-sqlite3 built them inside
 * the call, so older figures include them), mapping rows, the store's own JavaScript, and other threads (the WAL
 * checkpoint worker loads its own copy of better-sqlite3, which stays unpatched). A preemption by another process
 * while a statement runs counts as the statement's.
 *
 * Installing patches the prototypes of better-sqlite3's Database and Statement in this thread (so it sees the
 * store's cached statements and the BEGIN/COMMIT of db.transaction alike); the returned meter's uninstall() restores them.
 * Timing a call adds two performance.now() reads (~0.1 µs).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';

export interface SqliteMeterRow {
  /** The statement's SQL, whitespace collapsed (exec: the whole text given to exec). */
  sql: string;
  calls: number;
  ms: number;
}

export interface SqliteMeter {
  /** Every statement run since install, most time first. */
  snapshot(): SqliteMeterRow[];
  /** Puts the original methods back. */
  uninstall(): void;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

const STATEMENT_METHODS = ['run', 'get', 'all'] as const;

export function installSqliteMeter(): SqliteMeter {
  const probe = new Database(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, Method>;
  probe.close();
  const databasePrototype = Database.prototype as unknown as Record<string, Method>;

  // Keyed by the SQL as given (no per-call normalising); snapshot() merges texts that differ only in whitespace.
  const rows = new Map<string, { calls: number; ms: number }>();
  const count = (sql: string, ms: number): void => {
    let row = rows.get(sql);
    if (!row) rows.set(sql, (row = { calls: 0, ms: 0 }));
    row.calls++;
    row.ms += ms;
  };
  const timed = (original: Method, sqlOf: (self: unknown, args: unknown[]) => string): Method =>
    function (this: unknown, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        count(sqlOf(this, args), performance.now() - t0);
      }
    };

  const restore: Array<() => void> = [];
  for (const name of STATEMENT_METHODS) {
    const original = statementPrototype[name]!;
    statementPrototype[name] = timed(original, (self) => (self as Database.Statement).source);
    restore.push(() => (statementPrototype[name] = original));
  }
  const exec = databasePrototype.exec!;
  databasePrototype.exec = timed(exec, (_self, args) => String(args[0]));
  restore.push(() => (databasePrototype.exec = exec));

  return {
    snapshot: () => {
      const merged = new Map<string, SqliteMeterRow>();
      for (const [text, r] of rows) {
        const sql = text.replace(/\s+/g, ' ').trim();
        const row = merged.get(sql) ?? { sql, calls: 0, ms: 0 };
        merged.set(sql, { sql, calls: row.calls + r.calls, ms: row.ms + r.ms });
      }
      return [...merged.values()].sort((a, b) => b.ms - a.ms);
    },
    uninstall: () => {
      for (const undo of restore) undo();
    },
  };
}

/** What ran between two snapshots of the same meter (rows with no new calls left out), most time first. */
export function meterDifference(after: readonly SqliteMeterRow[], before: readonly SqliteMeterRow[]): SqliteMeterRow[] {
  const earlier = new Map(before.map((r) => [r.sql, r]));
  return after
    .map((r) => ({ sql: r.sql, calls: r.calls - (earlier.get(r.sql)?.calls ?? 0), ms: r.ms - (earlier.get(r.sql)?.ms ?? 0) }))
    .filter((r) => r.calls > 0)
    .sort((a, b) => b.ms - a.ms);
}

/** The time all the statements took (ms). */
export function meterTotalMs(statements: readonly SqliteMeterRow[]): number {
  return statements.reduce((a, r) => a + r.ms, 0);
}

/** The statements that took longest, per participant: time, calls and time per call, and the SQL (cut at 110 characters). */
export function formatMeterRows(statements: readonly SqliteMeterRow[], participants: number, top = 20): string[] {
  const totalMs = meterTotalMs(statements);
  const shown = statements.slice(0, top);
  return [
    `SQLite statements on the event loop: ${(totalMs / participants).toFixed(2)} ms per participant in all (${statements.length} kinds; the ${shown.length} that took longest, per participant):`,
    ...shown.map(
      (r) =>
        `  ${(r.ms / participants).toFixed(3).padStart(6)} ms  ${(r.calls / participants).toFixed(1).padStart(5)} calls × ${((r.ms * 1000) / r.calls).toFixed(1).padStart(6)} µs  ${r.sql.slice(0, 110)}`,
    ),
  ];
}

/** The last snapshot a server child appended to its TANDEM_SQLITE_METER file (the one it wrote at its stop). */
export function lastMeterSnapshot(file: string): SqliteMeterRow[] {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as SqliteMeterRow[];
}
