import { SqliteRepository, type Statements } from '../statements';
import type { EventRow, EventsRepo, SessionChangeEvent, UnfinishedReply } from '../../contract/store';
import { toEventRow, type EventRaw } from '../../rows/events';
import { EVENT_SQL } from '../../sql/events';
import { SESSION_SQL } from '../../sql/sessions';
import type { Sync } from '../sync';

/**
 * Inserts events at the session's next seqs (1, 2, …), in order, and adds their payload bytes to the storage budget's
 * counter (sessions.storageBytes) once; returns the seqs. Call inside the store's transaction (events.append,
 * sessions.change).
 */
export function insertEvents(
  q: Statements,
  sessionId: string,
  events: readonly SessionChangeEvent[],
  serverTs: number,
): number[] {
  let seq = q.one<{ last: number }>(EVENT_SQL.lastSeq, sessionId)!.last;
  let bytes = 0;
  const seqs: number[] = [];
  for (const e of events) {
    const json = JSON.stringify(e.payload ?? null);
    q.run(EVENT_SQL.insert, sessionId, ++seq, e.type, json, serverTs, e.clientTs);
    seqs.push(seq);
    bytes += Buffer.byteLength(json, 'utf8');
  }
  q.run(SESSION_SQL.addStoredBytes, bytes, sessionId);
  return seqs;
}

/** The append-only trajectory. There is no update or delete here on purpose. */
export class EventsRepository extends SqliteRepository implements Sync<EventsRepo> {
  /** insertEvents in a transaction of its own (BEGIN IMMEDIATE … COMMIT), for an append made outside one. */
  private readonly appendAlone = this.db.transaction((sessionId: string, event: SessionChangeEvent, serverTs: number) =>
    insertEvents(this.q, sessionId, [event], serverTs)[0]!,
  );

  /**
   * Appends an event with the session's next seq (1, 2, …) and returns that seq, inside the store's transaction or
   * in one of its own. Outside a transaction the event and the storage counter's update used to commit apart: two
   * WAL commits where one does (connection.opened and .closed, twice per participant), and a crash between them
   * left the counter short.
   */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): number {
    const event = { type, payload, clientTs };
    return this.db.inTransaction ? insertEvents(this.q, sessionId, [event], serverTs)[0]! : this.appendAlone.immediate(sessionId, event, serverTs);
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
