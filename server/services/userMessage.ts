/**
 * Stores a participant's chat message for its ack with one store call (Store.acknowledgeUserMessage: on
 * PostgreSQL one round trip) and turns a refusal into the participant's error. The session's study, task and
 * condition never change, so the study's limits the call needs come from the session row last seen
 * (knownSessions.ts: a read only the first time a node sees the session); the checks themselves run in the store
 * on the locked row.
 */
import crypto from 'node:crypto';
import type { ChatSend } from '../../common/events';
import { countTokens } from '../../common/tokens';
import type { LeaseOwner, MessageRow } from '../../lib/storage';
import { ServiceError, sessionContextOf, type ServiceContext, type SessionContext } from './serviceContext';
import { rememberSession, sessionDefinitions } from './knownSessions';
import { refuseInactive } from './lifecycle';
import { storageFull, storagePolicyOf } from './storageBudget';

export type StoredUserMessage = { duplicate: false; s: SessionContext; message: MessageRow } | { duplicate: true; message: MessageRow };

/**
 * Stores the message with its `message.user` event and the `reply.started` event of `replyId` (the reply the
 * caller then starts, its lease held by `owner`), or finds it already stored (a resend: `duplicate`). Throws the
 * participant's ServiceError when the session refuses it: over, past its time (recorded here), not in the
 * workspace, message too long, message limit reached, storage budget used up, a reply still active on a node.
 */
export async function storeUserMessage(ctx: ServiceContext, sessionId: string, p: ChatSend, replyId: string, owner: LeaseOwner): Promise<StoredUserMessage> {
  const { study } = await sessionDefinitions(ctx, sessionId);
  if (p.text.length > study.chat.max_message_chars)
    throw new ServiceError('too_large', `message is too long: ${p.text.length} characters, at most ${study.chat.max_message_chars}`, 'text');
  const messageId = crypto.randomUUID();
  const tokens = countTokens(p.text);
  // The message is stored twice (its event and its row); the reply is bounded by the model's output limit.
  const addedBytes = 2 * Buffer.byteLength(p.text, 'utf8');
  const r = await ctx.store.acknowledgeUserMessage({
    sessionId,
    messageId,
    clientId: p.clientId,
    text: p.text,
    tokens,
    now: ctx.now(),
    clientTs: p.clientTs,
    messageEvent: { type: 'message.user', payload: { messageId, clientId: p.clientId, text: p.text, chars: p.text.length, tokens } },
    followingEvent: { type: 'reply.started', payload: { replyId, replyTo: messageId, retry: false } },
    step: 'workspace',
    timeLimitMs: study.time_limit_minutes * 60_000,
    maxUserMessages: study.chat.max_user_messages,
    budgetBytes: storagePolicyOf(ctx).sessionBudgetBytes,
    addedBytes,
    lease: { replyId, owner },
  });
  if (r.outcome === 'not_found') throw new ServiceError('not_found', 'session not found');
  rememberSession(ctx, r.session);
  if (r.outcome === 'duplicate') return { duplicate: true, message: r.message };
  const s = sessionContextOf(ctx, r.session);
  if (r.outcome === 'stored') return { duplicate: false, s, message: r.message };
  switch (r.reason) {
    case 'overdue':
    case 'ended':
    case 'wrong_step':
      return refuseInactive(ctx, s, r.reason, 'workspace', 'message');
    case 'limit_reached':
      throw new ServiceError(
        'limit_reached',
        `message limit reached: this session allows ${study.chat.max_user_messages} messages to the assistant; please continue without the chat`,
      );
    case 'busy':
      // Its lease is held on this node or another (two tabs on two nodes): the same answer as a local reply.
      throw new ServiceError('busy', 'the assistant is still answering; wait or press Stop');
    case 'storage_full':
      throw storageFull(ctx, sessionId, r.storedBytes, addedBytes);
  }
}
