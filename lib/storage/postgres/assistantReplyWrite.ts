/**
 * Store.storeAssistantReply on PostgreSQL: one call of tandem_store_reply (migration 025), so storing a finished
 * reply holds a pooled connection for one round trip instead of a transaction of five statements plus BEGIN and
 * COMMIT (each a loopback write that wakes a backend: BENCHMARKS.md, "Session 7").
 */
import type { AssistantReplyWrite, AssistantReplyWriteResult } from '../contract/assistantReplyWrite';
import type { Runner } from './connection';
import { messageColumnsJson, toMessageRow, type MessageRaw } from '../rows/messages';

const CALL = 'SELECT tandem_store_reply($1, $2, $3, $4, $5, $6) AS answer';

export async function storeAssistantReply(db: Runner, w: AssistantReplyWrite): Promise<AssistantReplyWriteResult> {
  const row = await db.one<{ answer: string }>(CALL, [
    w.sessionId,
    w.replyId,
    w.event.type,
    JSON.stringify(w.event.payload ?? null),
    w.now,
    // event_seq is set by the function, from the event it appends.
    messageColumnsJson({ ...w.message, eventSeq: 0 }),
  ]);
  const answer = JSON.parse(row!.answer) as { outcome: 'stored' | 'already'; message: MessageRaw };
  return { stored: answer.outcome === 'stored', message: toMessageRow(answer.message) };
}
