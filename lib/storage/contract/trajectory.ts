/**
 * The trajectory of a session: its append-only events, its messages and the crash checkpoints of replies while
 * they stream. Part of the storage contract: lib/storage/contract/store.ts re-exports everything here, and code
 * imports it from there.
 */
import type { MessageStatus } from '../../../common/session';

/** One trajectory event. `payload` is parsed JSON. */
export interface EventRow {
  sessionId: string;
  seq: number;
  type: string;
  payload: unknown;
  serverTs: number;
  clientTs: number | null;
}

/** A `reply.started` event whose reply was never stored (the process died mid-reply). */
export interface UnfinishedReply {
  sessionId: string;
  replyId: string;
  replyTo: string;
  startedAt: number;
}

export interface MessageRow {
  id: string;
  sessionId: string;
  eventSeq: number;
  role: 'user' | 'assistant';
  text: string;
  clientId: string | null;
  replyTo: string | null;
  status: MessageStatus;
  /** o200k_base token count of `text`. */
  tokens: number;
  provider: string | null;
  providerUrl: string | null;
  /** Exact model the provider reported. */
  model: string | null;
  requestedModel: string | null;
  params: Record<string, unknown> | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  ttftMs: number | null;
  durationMs: number | null;
  finishReason: string | null;
  interrupted: boolean;
  attempts: number | null;
  error: { kind: string; message: string; status?: number; retryable: boolean } | null;
  createdAt: number;
}

/** The latest crash checkpoint of a reply that is (or was, when the process died) streaming. */
export interface ReplyProgressRow {
  replyId: string;
  sessionId: string;
  /** Everything streamed up to the checkpoint. */
  text: string;
  provider: string | null;
  /** Server ms UTC of the first streamed text. */
  firstDeltaAt: number;
  /** Server ms UTC of the checkpoint. */
  updatedAt: number;
}

/**
 * A checkpoint to write: with `textFrom` 0 (or absent) `text` is the reply's whole text so far; with `textFrom` n > 0 it
 * is what streamed since the reply's last checkpoint, which ended at character n (UTF-16 code units). Writing only the
 * new text keeps a reply's checkpoints linear in its length (migration 034).
 */
export type ReplyProgressWrite = ReplyProgressRow & { textFrom?: number };

/** The append-only trajectory. There is no update or delete here on purpose. */
export interface EventsRepo {
  /** Appends an event with the session's next seq (1, 2, …) and returns that seq. */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): Promise<number>;
  listForSession(sessionId: string): Promise<EventRow[]>;
  count(sessionId?: string): Promise<number>;
  /** `reply.started` events whose reply was never stored, oldest first (start-up crash recovery). */
  listUnfinishedReplies(): Promise<UnfinishedReply[]>;
}

export interface MessagesRepo {
  insert(m: MessageRow): Promise<void>;
  /**
   * Inserts a participant message unless the session already has one with this clientId; returns whether
   * it was inserted. Decided by the (session_id, client_id) unique constraint (ON CONFLICT DO NOTHING), so
   * it is exactly-once even when two resends race on two connections. Call inside a transaction that
   * rolls back (throws) when it returns false, so the event appended with it is not stored either.
   */
  insertIfNewClientId(m: MessageRow & { clientId: string }): Promise<boolean>;
  get(id: string): Promise<MessageRow | undefined>;
  findByClientId(sessionId: string, clientId: string): Promise<MessageRow | undefined>;
  /** All messages of a session in trajectory order. */
  listForSession(sessionId: string): Promise<MessageRow[]>;
  count(sessionId?: string): Promise<number>;
}

/**
 * Crash checkpoints of streaming replies: one row per reply in flight, overwritten by each checkpoint
 * (the due checkpoints of all replies are written together) and removed in the transaction that stores the
 * finished reply.
 */
export interface ReplyProgressRepo {
  /** Writes (or overwrites) the checkpoint of a reply with its whole text (saveMany of one row). */
  save(p: ReplyProgressRow): Promise<void>;
  /**
   * Writes the checkpoints of several replies (distinct reply ids) in one call: one statement on PostgreSQL, one
   * transaction on SQLite. A whole text overwrites the reply's checkpoint (`firstDeltaAt` is kept from the first
   * write); a later part is appended to it, and skipped when the reply has no checkpoint. A row whose session no
   * longer exists (withdrawn meanwhile) is skipped.
   */
  saveMany(rows: readonly ReplyProgressWrite[]): Promise<void>;
  /** The checkpoint with its whole text (the first write's text and every later part, in order). */
  get(replyId: string): Promise<ReplyProgressRow | undefined>;
  delete(replyId: string): Promise<void>;
  /** Removes checkpoints whose reply is already stored (left behind by a crash between the two writes). Returns how many. */
  deleteStored(): Promise<number>;
  count(): Promise<number>;
}
