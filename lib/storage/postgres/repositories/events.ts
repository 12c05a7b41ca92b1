import type { EventRow, EventsRepo, UnfinishedReply } from '../../contract/store';
import type { Runner } from '../connection';

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

/** The append-only trajectory (a trigger refuses UPDATE). There is no update or delete here on purpose. */
export class PgEvents implements EventsRepo {
  constructor(private readonly db: Runner) {}

  /** seq is assigned by tandem_append_event (migration 001): per-session row lock, then MAX + 1. */
  async append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): Promise<number> {
    const r = await this.db.one<{ seq: number }>('SELECT tandem_append_event($1, $2, $3, $4, $5) AS seq', [
      sessionId,
      type,
      JSON.stringify(payload ?? null),
      serverTs,
      clientTs,
    ]);
    return r!.seq;
  }

  async listForSession(sessionId: string): Promise<EventRow[]> {
    return (await this.db.rows<Raw>('SELECT * FROM events WHERE session_id = $1 ORDER BY seq', [sessionId])).map(toRow);
  }

  async count(sessionId?: string): Promise<number> {
    const r =
      sessionId === undefined
        ? await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM events')
        : await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM events WHERE session_id = $1', [sessionId]);
    return r!.n;
  }

  async listUnfinishedReplies(): Promise<UnfinishedReply[]> {
    return this.db.rows<UnfinishedReply>(
      `SELECT e.session_id AS "sessionId", e.payload::json ->> 'replyId' AS "replyId",
              e.payload::json ->> 'replyTo' AS "replyTo", e.server_ts AS "startedAt"
         FROM events e
        WHERE e.type = 'reply.started'
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.payload::json ->> 'replyId')
        ORDER BY e.id`,
    );
  }
}
