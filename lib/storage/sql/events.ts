/** The `events` queries of both engines (see engineSql.ts for how a query is written once). */
import { both, postgresOnly, sqliteOnly, variant } from './engineSql';

export const EVENT_SQL = {
  /**
   * Appending an event. SQLite: the next seq (under BEGIN IMMEDIATE's write lock), the insert, then the byte counter
   * (SESSION_SQL.addStoredBytes). PostgreSQL: tandem_append_event (migration 001) does all three under the session's
   * row lock in one call.
   */
  lastSeq: sqliteOnly('plpgsql', 'SELECT COALESCE(MAX(seq), 0) AS last FROM events WHERE session_id = ?'),
  insert: sqliteOnly('plpgsql', 'INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts) VALUES (?, ?, ?, ?, ?, ?)'),
  append: postgresOnly('plpgsql', 'SELECT tandem_append_event($1, $2, $3, $4, $5) AS seq'),
  listForSession: both('SELECT * FROM events WHERE session_id = ? ORDER BY seq'),
  countAll: both('SELECT COUNT(*) AS n FROM events'),
  countInSession: both('SELECT COUNT(*) AS n FROM events WHERE session_id = ?'),
  /** `reply.started` events whose reply was never stored, oldest first (events.id grows with every append). */
  listUnfinishedReplies: variant('json', {
    sqlite: `SELECT e.session_id AS sessionId, json_extract(e.payload, '$.replyId') AS replyId,
              json_extract(e.payload, '$.replyTo') AS replyTo, e.server_ts AS startedAt
         FROM events e
        WHERE e.type = 'reply.started'
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = json_extract(e.payload, '$.replyId'))
        ORDER BY e.id`,
    postgres: `SELECT e.session_id AS "sessionId", e.payload::json ->> 'replyId' AS "replyId",
              e.payload::json ->> 'replyTo' AS "replyTo", e.server_ts AS "startedAt"
         FROM events e
        WHERE e.type = 'reply.started'
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.payload::json ->> 'replyId')
        ORDER BY e.id`,
  }),
} as const;
