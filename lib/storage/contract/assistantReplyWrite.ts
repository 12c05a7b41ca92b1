/**
 * The store contract of a finished reply's write (Store.storeAssistantReply): the reply's outcome as one call,
 * so PostgreSQL answers it in one round trip (the plpgsql function tandem_store_reply, migration 025) and SQLite in
 * one synchronous transaction. The guarantees are those of the transaction it replaces (services/replyStore.ts
 * before session 7):
 *   - the reply's lease is deleted first: on PostgreSQL that waits for a takeover holding the lease row (this node
 *     looked dead), so the read after it sees the reply that takeover stored;
 *   - a reply already stored (an earlier attempt whose answer was lost with the connection, or another node's
 *     takeover) is returned as it is and nothing is written;
 *   - otherwise its event is appended (seq = the session's last + 1, the storage counter updated), the message row
 *     is inserted with that seq, and the reply's checkpoint is deleted, all or nothing.
 */
import type { MessageRow } from './trajectory';

export interface AssistantReplyWrite {
  sessionId: string;
  /** The reply's id: its message's id, lease and checkpoint. */
  replyId: string;
  /** The event recording the outcome (e.g. reply.finished) and its server time (ms). */
  event: { type: string; payload: unknown };
  now: number;
  /** The message row to store; its eventSeq is the event's. */
  message: Omit<MessageRow, 'eventSeq'>;
}

/** `stored`: written now; false: the reply was stored before and `message` is that row. */
export interface AssistantReplyWriteResult {
  stored: boolean;
  message: MessageRow;
}
