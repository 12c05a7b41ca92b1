/**
 * Store.acknowledgeUserMessage on PostgreSQL: one call of tandem_acknowledge_user_message (migration 023), so a
 * chat message holds a pooled connection for one round trip instead of a transaction of six (plus reads).
 */
import type { UserMessageAck, UserMessageAckResult } from '../contract/userMessageAck';
import type { Runner } from './connection';
import { toMessageRow, type MessageRaw } from '../rows/messages';
import { toSessionRow, type SessionRaw } from '../rows/sessions';

interface Answer {
  outcome: 'stored' | 'duplicate' | 'not_found' | 'refused';
  reason?: Extract<UserMessageAckResult, { outcome: 'refused' }>['reason'];
  session?: SessionRaw;
  message?: MessageRaw;
  storedBytes?: number;
}

const CALL = 'SELECT tandem_acknowledge_user_message($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) AS answer';

/** unique_violation of the (session_id, client_id) constraint: a resend stored by a writer that did not lock the session. */
const isClientIdConflict = (err: unknown): boolean =>
  (err as { code?: string }).code === '23505' && /client_id/.test((err as { constraint?: string; detail?: string }).constraint ?? (err as { detail?: string }).detail ?? '');

export async function acknowledgeUserMessage(db: Runner, a: UserMessageAck, retried = false): Promise<UserMessageAckResult> {
  let row: { answer: string } | undefined;
  try {
    row = await db.one<{ answer: string }>(CALL, [
      a.sessionId,
      a.messageId,
      a.clientId,
      a.text,
      a.tokens,
      a.now,
      a.clientTs,
      a.messageEvent.type,
      JSON.stringify(a.messageEvent.payload ?? null),
      a.followingEvent.type,
      JSON.stringify(a.followingEvent.payload ?? null),
      a.step,
      a.timeLimitMs,
      a.maxUserMessages,
      a.budgetBytes,
      a.addedBytes,
      a.lease.replyId,
      a.lease.owner.node,
      a.lease.owner.incarnation,
    ]);
  } catch (err) {
    if (retried || !isClientIdConflict(err)) throw err;
    // The call rolled back as a whole; called again, it finds the message that won and answers 'duplicate'.
    return acknowledgeUserMessage(db, a, true);
  }
  const answer = JSON.parse(row!.answer) as Answer;
  if (answer.outcome === 'not_found') return { outcome: 'not_found' };
  const session = toSessionRow(answer.session!);
  if (answer.outcome === 'refused') return { outcome: 'refused', reason: answer.reason!, session, storedBytes: answer.storedBytes! };
  return { outcome: answer.outcome === 'stored' ? 'stored' : 'duplicate', session, message: toMessageRow(answer.message!) };
}
