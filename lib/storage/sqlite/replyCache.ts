/**
 * The judge/annotator reply cache as a standalone SQLite file (<dataDir or dataset-dir>/.judge-cache.sqlite):
 * completed model replies keyed by a hash of everything that determines the reply plus the sample index.
 * Only completed replies are stored (callers never put transport failures), so a rerun re-parses without
 * new calls. Implements the async ModelReplyCache of the store contract; statements run synchronously.
 */
import Database from 'better-sqlite3';
import type { SqliteDatabase } from './database';
import type { CachedReply, ModelReplyCache } from '../contract/store';
import { cachedReplyValues, toCachedReply, type CachedReplyRaw } from '../rows/replyCache';
import { REPLY_CACHE_SQL } from '../sql/replyCache';
import { Statements } from './statements';
import { settle } from './sync';

/** File name of the cache beside a study database or in a dataset folder. */
export const REPLY_CACHE_FILE_NAME = '.judge-cache.sqlite';

class SyncReplyCache {
  private readonly q: Statements;

  private constructor(private readonly db: SqliteDatabase) {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TABLE IF NOT EXISTS reply_cache (
      key TEXT PRIMARY KEY,
      purpose TEXT NOT NULL,
      request_json TEXT NOT NULL,
      result_json TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT;
    -- Which sessions' text each cached reply was made from, so a withdrawal can purge them.
    CREATE TABLE IF NOT EXISTS reply_cache_sessions (
      key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      PRIMARY KEY (key, session_id)
    ) STRICT`);
    this.q = new Statements(db);
  }

  static open(file: string): SyncReplyCache {
    return new SyncReplyCache(new Database(file));
  }

  get(key: string): CachedReply | undefined {
    const row = this.q.one<CachedReplyRaw>(REPLY_CACHE_SQL.get, key);
    return row && toCachedReply(row);
  }

  put(entry: CachedReply): void {
    this.q.run(REPLY_CACHE_SQL.put, ...cachedReplyValues(entry));
  }

  /** Records that `sessionId`'s data went into the cached reply `key`. */
  linkSession(key: string, sessionId: string): void {
    this.q.run(REPLY_CACHE_SQL.linkSession, key, sessionId);
  }

  /**
   * Deletes every cached reply made from any of these sessions (for withdrawals: prompts hold their
   * text). Returns the number of replies deleted.
   */
  forgetSessions(sessionIds: readonly string[]): number {
    let deleted = 0;
    this.db.transaction(() => {
      for (const id of sessionIds) {
        for (const { key } of this.q.rows<{ key: string }>(REPLY_CACHE_SQL.keysOfSession, id)) {
          deleted += this.q.run(REPLY_CACHE_SQL.deleteReply, key);
          this.q.run(REPLY_CACHE_SQL.deleteLinks, key);
        }
      }
    })();
    return deleted;
  }

  count(): number {
    return this.q.one<{ n: number }>(REPLY_CACHE_SQL.count)?.n ?? 0;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Opens (creating if needed) a reply cache file. */
export function openFileReplyCache(file: string): ModelReplyCache {
  const cache = SyncReplyCache.open(file);
  return {
    get: (key) => settle(() => cache.get(key)),
    put: (entry) => settle(() => cache.put(entry)),
    linkSession: (key, sessionId) => settle(() => cache.linkSession(key, sessionId)),
    forgetSessions: (ids) => settle(() => cache.forgetSessions(ids)),
    count: () => settle(() => cache.count()),
    close: () => settle(() => cache.close()),
  };
}
