/**
 * The `reply_cache` row as both reply caches return it (the SQLite file, lib/storage/sqlite/replyCache.ts, and
 * the PostgreSQL table, lib/storage/postgres/replyCache.ts: the same column types on each) and its mapping.
 */
import type { CachedReply } from '../contract/store';

export interface CachedReplyRaw {
  key: string;
  purpose: string;
  request_json: string;
  result_json: string;
  created_at: number;
}

export const toCachedReply = (r: CachedReplyRaw): CachedReply => ({
  key: r.key,
  purpose: r.purpose,
  requestJson: r.request_json,
  resultJson: r.result_json,
  createdAt: r.created_at,
});

/** Insert values in the column order key, purpose, request_json, result_json, created_at. */
export const cachedReplyValues = (e: CachedReply) => [e.key, e.purpose, e.requestJson, e.resultJson, e.createdAt] as const;
