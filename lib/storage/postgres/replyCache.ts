/**
 * The judge/annotator reply cache as tables of a PostgreSQL study database (migration 013): the same
 * contract as the SQLite file cache (lib/storage/sqlite/replyCache.ts), shared by every node and CLI run.
 */
import type pg from 'pg';
import type { CachedReply, ModelReplyCache } from '../contract/store';
import { cachedReplyValues, toCachedReply, type CachedReplyRaw } from '../rows/replyCache';
import { PoolRunner, type Runner } from './connection';

export class PgReplyCache implements ModelReplyCache {
  private readonly db: Runner;
  constructor(pool: pg.Pool) {
    this.db = new PoolRunner(pool);
  }

  async get(key: string): Promise<CachedReply | undefined> {
    const r = await this.db.one<CachedReplyRaw>('SELECT * FROM reply_cache WHERE key = $1', [key]);
    return r && toCachedReply(r);
  }

  async put(entry: CachedReply): Promise<void> {
    await this.db.run(
      `INSERT INTO reply_cache (key, purpose, request_json, result_json, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key) DO UPDATE SET purpose = excluded.purpose, request_json = excluded.request_json,
         result_json = excluded.result_json, created_at = excluded.created_at`,
      cachedReplyValues(entry),
    );
  }

  async linkSession(key: string, sessionId: string): Promise<void> {
    await this.db.run('INSERT INTO reply_cache_sessions (key, session_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, sessionId]);
  }

  forgetSessions(sessionIds: readonly string[]): Promise<number> {
    return this.db.atomic(async (tx) => {
      let deleted = 0;
      for (const id of sessionIds) {
        const keys = await tx.rows<{ key: string }>('SELECT key FROM reply_cache_sessions WHERE session_id = $1', [id]);
        for (const { key } of keys) {
          deleted += await tx.run('DELETE FROM reply_cache WHERE key = $1', [key]);
          await tx.run('DELETE FROM reply_cache_sessions WHERE key = $1', [key]);
        }
      }
      return deleted;
    });
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM reply_cache'))!.n;
  }

  /** The pool belongs to the store; closing the cache releases nothing of its own. */
  async close(): Promise<void> {}
}
