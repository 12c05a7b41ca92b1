import { cachedStatement, type SqliteDatabase } from '../database';
import type { EventRow, EventsRepo, UnfinishedReply } from '../../contract/store';
import { toEventRow, type EventRaw } from '../../rows/events';
import { EVENT_SQL } from '../../sql/events';
import { SESSION_SQL } from '../../sql/sessions';
import type { Sync } from '../sync';

/** The append-only trajectory. There is no update or delete here on purpose. */
export class EventsRepository implements Sync<EventsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Appends an event with the session's next seq (1, 2, …) and returns that seq. Call inside the store's transaction. */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): number {
    const r = cachedStatement(this.db, EVENT_SQL.lastSeq.sqlite).get(sessionId) as { last: number };
    const seq = r.last + 1;
    const json = JSON.stringify(payload ?? null);
    cachedStatement(this.db, EVENT_SQL.insert.sqlite).run(sessionId, seq, type, json, serverTs, clientTs);
    // The per-session storage budget's counter (sessions.storageBytes).
    cachedStatement(this.db, SESSION_SQL.addStoredBytes.sqlite).run(Buffer.byteLength(json, 'utf8'), sessionId);
    return seq;
  }

  listForSession(sessionId: string): EventRow[] {
    return (cachedStatement(this.db, EVENT_SQL.listForSession.sqlite).all(sessionId) as EventRaw[]).map(toEventRow);
  }

  count(sessionId?: string): number {
    const r = (sessionId === undefined
      ? cachedStatement(this.db, EVENT_SQL.countAll.sqlite).get()
      : cachedStatement(this.db, EVENT_SQL.countInSession.sqlite).get(sessionId)) as { n: number };
    return r.n;
  }

  /**
   * `reply.started` events whose reply was never stored (the process died mid-reply), oldest first.
   * Used once at start-up by crash recovery.
   */
  listUnfinishedReplies(): UnfinishedReply[] {
    return cachedStatement(this.db, EVENT_SQL.listUnfinishedReplies.sqlite).all() as UnfinishedReply[];
  }
}
