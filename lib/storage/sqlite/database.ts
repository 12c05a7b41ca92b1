import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) the SQLite file with the settings every Tandem process uses:
 * WAL (readers never block the writer), foreign keys on, a busy timeout so a second process
 * (CLI export while the server runs) waits instead of failing, synchronous=NORMAL (safe with WAL).
 */
export function openDatabase(file: string): SqliteDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return db;
}

const statementCaches = new WeakMap<SqliteDatabase, Map<string, Database.Statement>>();

/** A prepared statement for `sql`, prepared once per connection and reused (preparing dominates small queries). */
export function cachedStatement(db: SqliteDatabase, sql: string): Database.Statement {
  let cache = statementCaches.get(db);
  if (!cache) {
    cache = new Map();
    statementCaches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
