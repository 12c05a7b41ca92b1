/**
 * The judge/annotator reply cache as tables of a PostgreSQL study database (migration 013): the same
 * contract as the SQLite file cache (lib/storage/sqlite/replyCache.ts), shared by every node and CLI run.
 */
import type pg from 'pg';
import type { CachedReply, ModelReplyCache } from '../contract/store';
import { cachedReplyValues, toCachedReply, type CachedReplyRaw } from '../rows/replyCache';
import { REPLY_CACHE_SQL } from '../sql/replyCache';
import { PoolRunner, type Runner } from './connection';

export class PgReplyCache implements ModelReplyCache {
  private readonly db: Runner;
  constructor(pool: pg.Pool) {
    this.db = new PoolRunner(pool);
  }

  async get(key: string): Promise<CachedReply | undefined> {
    const r = await this.db.one<CachedReplyRaw>(REPLY_CACHE_SQL.get.postgres, [key]);
    return r && toCachedReply(r);
  }

  async put(entry: CachedReply): Promise<void> {
    await this.db.run(REPLY_CACHE_SQL.put.postgres, cachedReplyValues(entry));
  }

  async linkSession(key: string, sessionId: string): Promise<void> {
    await this.db.run(REPLY_CACHE_SQL.linkSession.postgres, [key, sessionId]);
  }

  forgetSessions(sessionIds: readonly string[]): Promise<number> {
    return this.db.atomic(async (tx) => {
      let deleted = 0;
      for (const id of sessionIds) {
        const keys = await tx.rows<{ key: string }>(REPLY_CACHE_SQL.keysOfSession.postgres, [id]);
        for (const { key } of keys) {
          deleted += await tx.run(REPLY_CACHE_SQL.deleteReply.postgres, [key]);
          await tx.run(REPLY_CACHE_SQL.deleteLinks.postgres, [key]);
        }
      }
      return deleted;
    });
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(REPLY_CACHE_SQL.count.postgres))!.n;
  }

  /** The pool belongs to the store; closing the cache releases nothing of its own. */
  async close(): Promise<void> {}
}
