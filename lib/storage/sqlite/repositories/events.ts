import { cachedStatement, type SqliteDatabase } from '../database';
import type { EventRow, EventsRepo, UnfinishedReply } from '../../contract/store';
import type { Sync } from '../sync';

interface Raw {
  session_id: string;
  seq: number;
  type: string;
  payload: string;
  server_ts: number;
  client_ts: number | null;
}
const toRow = (r: Raw): EventRow => ({
  sessionId: r.session_id,
  seq: r.seq,
  type: r.type,
  payload: JSON.parse(r.payload) as unknown,
  serverTs: r.server_ts,
  clientTs: r.client_ts,
});

/** The append-only trajectory. There is no update or delete here on purpose. */
export class EventsRepository implements Sync<EventsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Appends an event with the session's next seq (1, 2, …) and returns that seq. Call inside the store's transaction. */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): number {
    const r = cachedStatement(this.db, 'SELECT COALESCE(MAX(seq), 0) AS last FROM events WHERE session_id = ?').get(sessionId) as { last: number };
    const seq = r.last + 1;
    const json = JSON.stringify(payload ?? null);
    cachedStatement(this.db, 'INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts) VALUES (?, ?, ?, ?, ?, ?)')
      .run(sessionId, seq, type, json, serverTs, clientTs);
    // The per-session storage budget's counter (sessions.storageBytes).
    cachedStatement(this.db, 'UPDATE sessions SET stored_bytes = stored_bytes + ? WHERE id = ?').run(Buffer.byteLength(json, 'utf8'), sessionId);
    return seq;
  }

  listForSession(sessionId: string): EventRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM events WHERE session_id = ? ORDER BY seq').all(sessionId) as Raw[]).map(toRow);
  }

  count(sessionId?: string): number {
    const r = (sessionId
      ? cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM events WHERE session_id = ?').get(sessionId)
      : cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM events').get()) as { n: number };
    return r.n;
  }

  /**
   * `reply.started` events whose reply was never stored (the process died mid-reply), oldest first.
   * Used once at start-up by crash recovery.
   */
  listUnfinishedReplies(): Array<{ sessionId: string; replyId: string; replyTo: string; startedAt: number }> {
    const rows = cachedStatement(
      this.db,
      `SELECT e.session_id AS sessionId, json_extract(e.payload, '$.replyId') AS replyId,
              json_extract(e.payload, '$.replyTo') AS replyTo, e.server_ts AS startedAt
         FROM events e
        WHERE e.type = 'reply.started'
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = json_extract(e.payload, '$.replyId'))
        ORDER BY e.id`,
    ).all() as Array<{ sessionId: string; replyId: string; replyTo: string; startedAt: number }>;
    return rows;
  }
}
