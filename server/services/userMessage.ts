/**
 * Stores a participant's chat message for its ack with one store call (Store.acknowledgeUserMessage: on
 * PostgreSQL one round trip) and turns a refusal into the participant's error. The session's study, task and
 * condition never change, so the study's limits the call needs come from the session row last seen (a read
 * only the first time a node sees the session); the checks themselves run in the store on the locked row.
 */
import crypto from 'node:crypto';
import type { ChatSend } from '../../common/events';
import { countTokens } from '../../common/tokens';
import type { LeaseOwner, MessageRow, SessionRow } from '../../lib/storage';
import { loadSession, ServiceError, sessionContextOf, type ServiceContext, type SessionContext } from './serviceContext';
import { checkActive, requireActive } from './lifecycle';
import { storageFull, storagePolicyOf } from './storageBudget';

export type StoredUserMessage = { duplicate: false; s: SessionContext; message: MessageRow } | { duplicate: true; message: MessageRow };

/** Session rows by id, per configuration (only their immutable study/task/condition ids are used). Bounded. */
const seen = new WeakMap<ServiceContext['config'], Map<string, SessionRow>>();
const MAX_SEEN = 50_000;

/** Remembers a session's row (services that load it anyway call this, so a first message needs no read). */
export function rememberSession(ctx: Pick<ServiceContext, 'config'>, session: SessionRow): void {
  let rows = seen.get(ctx.config);
  if (!rows) seen.set(ctx.config, (rows = new Map()));
  if (rows.size >= MAX_SEEN && !rows.has(session.id)) rows.delete(rows.keys().next().value!);
  rows.set(session.id, session);
}

async function definitionsOf(ctx: ServiceContext, sessionId: string): Promise<SessionContext> {
  const row = seen.get(ctx.config)?.get(sessionId);
  if (row) return sessionContextOf(ctx, row);
  const s = await loadSession(ctx, sessionId);
  rememberSession(ctx, s.session);
  return s;
}

/**
 * Stores the message with its `message.user` event and the `reply.started` event of `replyId` (the reply the
 * caller then starts, its lease held by `owner`), or finds it already stored (a resend: `duplicate`). Throws the
 * participant's ServiceError when the session refuses it: over, past its time (recorded here), not in the
 * workspace, message too long, message limit reached, storage budget used up, a reply still active on a node.
 */
export async function storeUserMessage(ctx: ServiceContext, sessionId: string, p: ChatSend, replyId: string, owner: LeaseOwner): Promise<StoredUserMessage> {
  const { study } = await definitionsOf(ctx, sessionId);
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
      // Records the time-out (as any action past the deadline does), then refuses as session_over.
      await requireActive(ctx, sessionId, ['workspace']);
      throw new ServiceError('session_over', 'this session has ended (timed_out)');
    case 'ended':
    case 'wrong_step':
      checkActive(s, ['workspace']);
      throw new ServiceError('internal', `the store refused the message (${r.reason}) but the session is active at the workspace`);
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
