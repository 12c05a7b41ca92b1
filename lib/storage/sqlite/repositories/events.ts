import { SqliteRepository } from '../statements';
import type { EventRow, EventsRepo, UnfinishedReply } from '../../contract/store';
import { toEventRow, type EventRaw } from '../../rows/events';
import { EVENT_SQL } from '../../sql/events';
import { SESSION_SQL } from '../../sql/sessions';
import type { Sync } from '../sync';

/** The append-only trajectory. There is no update or delete here on purpose. */
export class EventsRepository extends SqliteRepository implements Sync<EventsRepo> {
  /** Appends an event with the session's next seq (1, 2, …) and returns that seq. Call inside the store's transaction. */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): number {
    const r = this.q.one<{ last: number }>(EVENT_SQL.lastSeq, sessionId)!;
    const seq = r.last + 1;
    const json = JSON.stringify(payload ?? null);
    this.q.run(EVENT_SQL.insert, sessionId, seq, type, json, serverTs, clientTs);
    // The per-session storage budget's counter (sessions.storageBytes).
    this.q.run(SESSION_SQL.addStoredBytes, Buffer.byteLength(json, 'utf8'), sessionId);
    return seq;
  }

  listForSession(sessionId: string): EventRow[] {
    return this.q.rows<EventRaw>(EVENT_SQL.listForSession, sessionId).map(toEventRow);
  }

  count(sessionId?: string): number {
    const r = sessionId === undefined ? this.q.one<{ n: number }>(EVENT_SQL.countAll) : this.q.one<{ n: number }>(EVENT_SQL.countInSession, sessionId);
    return r!.n;
  }

  /**
   * `reply.started` events whose reply was never stored (the process died mid-reply), oldest first.
   * Used once at start-up by crash recovery.
   */
  listUnfinishedReplies(): UnfinishedReply[] {
    return this.q.rows<UnfinishedReply>(EVENT_SQL.listUnfinishedReplies);
  }
}
