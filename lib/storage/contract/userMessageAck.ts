/**
 * The store contract of a chat message's acknowledgement (Store.acknowledgeUserMessage): every check and
 * write a participant's message needs before its ack, as one call, so PostgreSQL answers it in one round
 * trip (the plpgsql function tandem_acknowledge_user_message, migration 023) and SQLite in one synchronous
 * transaction. The guarantees are those of the transaction it replaces (services/chat.ts before session 5):
 *   - the session row is locked first (PostgreSQL: FOR NO KEY UPDATE, the lock of tandem_append_event), so
 *     seq stays gap-free and every check below is made on the row as it is when the write happens;
 *   - a clientId the session already has is a resend: its stored message is returned ('duplicate') whatever
 *     happened to the session since, and nothing is written;
 *   - the unique (session_id, client_id) still decides two racing resends (the loser's event rolls back and
 *     it answers 'duplicate' with the winner's row);
 *   - the session must be active, at `step`, and not past its deadline (consentedAt + timeLimitMs);
 *   - the participant may have sent at most `maxUserMessages - 1` messages before;
 *   - the write must fit the session's storage budget (sessions.storageBytes + addedBytes <= budgetBytes);
 *   - the session has no active reply on any node: the reply's lease (reply_leases, migration 021) is taken in
 *     the same transaction, decided by its primary key, so two nodes never both start a reply ('busy').
 */
import type { Step } from '../../../common/session';
import type { SessionRow } from './sessions';
import type { MessageRow } from './trajectory';
import type { LeaseOwner } from './leases';

/** An event written with the message: its type and payload (stored as JSON). */
export interface AckEvent {
  type: string;
  payload: unknown;
}

export interface UserMessageAck {
  sessionId: string;
  /** The new message's id, the participant's clientId, its text and token count. */
  messageId: string;
  clientId: string;
  text: string;
  tokens: number;
  /** Server time (ms) of the message and its events; the client's clock of the message event. */
  now: number;
  clientTs: number | null;
  /** The event recording the message (its seq becomes the message's eventSeq). */
  messageEvent: AckEvent;
  /** The event appended right after the message (e.g. reply.started), in the same transaction. */
  followingEvent: AckEvent;
  /** The step the session must be at. */
  step: Step;
  /** The study's time limit (ms after consent). */
  timeLimitMs: number;
  maxUserMessages: number;
  /** The session's storage budget, and the bytes this message counts against it. */
  budgetBytes: number;
  addedBytes: number;
  /** The reply the message starts (`followingEvent`'s): its lease, owned by this node, answers reply_to = messageId. */
  lease: { replyId: string; owner: LeaseOwner };
}

/**
 * Why nothing was stored: no such session; the session is over (status not active); it is active but past
 * its deadline (the caller records the time-out); at another step; message limit reached; budget used up; a
 * reply of the session is still active on some node (its lease).
 */
export type AckRefusal = 'ended' | 'overdue' | 'wrong_step' | 'limit_reached' | 'storage_full' | 'busy';

export type UserMessageAckResult =
  /** Stored now (`message` has its eventSeq), or a resend of a stored message (nothing written). */
  | { outcome: 'stored'; message: MessageRow; session: SessionRow }
  | { outcome: 'duplicate'; message: MessageRow; session: SessionRow }
  | { outcome: 'not_found' }
  /** `storedBytes`: the session's storage in use (sessions.storageBytes) when it was refused. */
  | { outcome: 'refused'; reason: AckRefusal; session: SessionRow; storedBytes: number };

/** A participant's message row as chat:send stores it: no reply, no provenance (those are the assistant's). */
export function userMessageRow(m: Pick<MessageRow, 'id' | 'sessionId' | 'eventSeq' | 'text' | 'tokens' | 'createdAt'> & { clientId: string }): MessageRow & { clientId: string } {
  return {
    ...m,
    role: 'user',
    replyTo: null,
    status: 'complete',
    provider: null,
    providerUrl: null,
    model: null,
    requestedModel: null,
    params: null,
    usage: null,
    ttftMs: null,
    durationMs: null,
    finishReason: null,
    interrupted: false,
    attempts: null,
    error: null,
  };
}
