/** The judge/annotator reply cache (a file of its own on SQLite, migration 013's tables on PostgreSQL): the same queries. */
import { both } from './engineSql';

export const REPLY_CACHE_SQL = {
  get: both('SELECT key, purpose, request_json, result_json, created_at FROM reply_cache WHERE key = ?'),
  /** Parameters: cachedReplyValues(entry). */
  put: both(`INSERT INTO reply_cache (key, purpose, request_json, result_json, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET purpose = excluded.purpose, request_json = excluded.request_json,
         result_json = excluded.result_json, created_at = excluded.created_at`),
  linkSession: both('INSERT INTO reply_cache_sessions (key, session_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
  keysOfSession: both('SELECT key FROM reply_cache_sessions WHERE session_id = ? ORDER BY key'),
  deleteReply: both('DELETE FROM reply_cache WHERE key = ?'),
  deleteLinks: both('DELETE FROM reply_cache_sessions WHERE key = ?'),
  count: both('SELECT COUNT(*) AS n FROM reply_cache'),
} as const;
