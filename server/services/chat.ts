import crypto from 'node:crypto';
import type { ChatRetry, ChatRetryAck, ChatSend, ChatSendAck, ChatStop, ChatStopAck } from '../../common/events';
import type { CompletionResult, ProviderError } from '../llm/provider';
import { countTokens } from '../llm/tokens';
import type { MessageRow } from '../db/repositories/messages';
import type { MessageStatus } from '../../common/session';
import { ServiceError, type ServiceContext, type SessionContext } from './context';
import { requireActive } from './lifecycle';
import { buildConversation, unansweredUserMessage } from './conversation';
import { messageView, participantErrorMessage, type InFlightView } from './state';

interface InFlight extends InFlightView {
  abort: AbortController;
  /** Who aborted the reply: the participant (Stop → stored as stopped), our watchdog or a server shutdown (→ failed, retryable). */
  abortedBy: 'participant' | 'watchdog' | 'shutdown' | null;
  done: Promise<void>;
}

export interface ChatServiceOptions {
  /** Hard upper bound for one reply, after which it is aborted and stored as an error (default 5 min). */
  replyTimeoutMs?: number;
}

/**
 * Participant chat: stores each message once (by clientId) before acknowledging, streams the assistant's
 * reply to the session's sockets, and stores the reply with its provenance when it ends.
 * At most one reply is in flight per session, and every reply ends (done, stopped, failed or watchdog),
 * so a session never gets stuck.
 */
export class ChatService {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly replyTimeoutMs: number;

  constructor(
    private readonly ctx: ServiceContext,
    options: ChatServiceOptions = {},
  ) {
    this.replyTimeoutMs = options.replyTimeoutMs ?? 5 * 60_000;
  }

  inFlightView(sessionId: string): InFlightView | null {
    const f = this.inFlight.get(sessionId);
    return f ? { replyId: f.replyId, replyTo: f.replyTo, text: f.text } : null;
  }

  send(sessionId: string, p: ChatSend): ChatSendAck {
    const { store } = this.ctx;
    // A resend (same clientId) returns the stored ack whatever happened since, and stores nothing.
    const existing = store.messages.findByClientId(sessionId, p.clientId);
    if (existing) return { message: messageView(existing), replyId: this.replyIdFor(sessionId, existing.id), duplicate: true };

    const s = requireActive(this.ctx, sessionId, ['workspace']);
    if (p.text.length > s.study.chat.max_message_chars)
      throw new ServiceError('too_large', `message is too long: ${p.text.length} characters, at most ${s.study.chat.max_message_chars}`, 'text');
    if (this.inFlight.has(sessionId)) throw new ServiceError('busy', 'the assistant is still answering; wait or press Stop');

    const now = this.ctx.now();
    const messageId = crypto.randomUUID();
    const replyId = crypto.randomUUID();
    const tokens = countTokens(p.text);
    const message = store.transaction(() => {
      const seq = store.events.append(
        sessionId,
        'message.user',
        { messageId, clientId: p.clientId, text: p.text, chars: p.text.length, tokens },
        now,
        p.clientTs,
      );
      const row: MessageRow = {
        ...emptyProvenance(),
        id: messageId,
        sessionId,
        eventSeq: seq,
        role: 'user',
        text: p.text,
        clientId: p.clientId,
        replyTo: null,
        status: 'complete',
        tokens,
        createdAt: now,
      };
      store.messages.insert(row);
      store.events.append(sessionId, 'reply.started', { replyId, replyTo: messageId, retry: false }, now, null);
      return row;
    });
    this.startReply(s, replyId, messageId);
    return { message: messageView(message), replyId, duplicate: false };
  }

  stop(sessionId: string, p: ChatStop): ChatStopAck {
    const f = this.inFlight.get(sessionId);
    if (!f || (p.replyId !== undefined && p.replyId !== f.replyId)) return { stopped: false };
    this.ctx.store.events.append(sessionId, 'chat.stop_requested', { replyId: f.replyId }, this.ctx.now(), p.clientTs);
    f.abortedBy ??= 'participant';
    f.abort.abort();
    return { stopped: true };
  }

  /** Regenerates the reply to the last participant message when that message has no usable reply. */
  retry(sessionId: string, p: ChatRetry): ChatRetryAck {
    const s = requireActive(this.ctx, sessionId, ['workspace']);
    if (this.inFlight.has(sessionId)) throw new ServiceError('busy', 'the assistant is still answering');
    const lastUser = unansweredUserMessage(this.ctx.store.messages.listForSession(sessionId));
    if (!lastUser) throw new ServiceError('conflict', 'nothing to retry: the last message already has an answer');
    const replyId = crypto.randomUUID();
    this.ctx.store.events.append(sessionId, 'reply.started', { replyId, replyTo: lastUser.id, retry: true }, this.ctx.now(), p.clientTs);
    this.startReply(s, replyId, lastUser.id);
    return { replyId };
  }

  /** Aborts every reply in flight and waits until each is stored (server shutdown). */
  async shutdown(): Promise<void> {
    const all = [...this.inFlight.values()];
    for (const f of all) {
      f.abortedBy ??= 'shutdown';
      f.abort.abort();
    }
    await Promise.all(all.map((f) => f.done));
  }

  /** Waits for the session's reply in flight, if any, to be stored (tests, submit). */
  async settled(sessionId: string): Promise<void> {
    await this.inFlight.get(sessionId)?.done;
  }

  private replyIdFor(sessionId: string, userMessageId: string): string | null {
    const f = this.inFlight.get(sessionId);
    if (f && f.replyTo === userMessageId) return f.replyId;
    const replies = this.ctx.store.messages.listForSession(sessionId).filter((m) => m.replyTo === userMessageId);
    return replies.at(-1)?.id ?? null;
  }

  private startReply(s: SessionContext, replyId: string, replyTo: string): void {
    const sessionId = s.session.id;
    const abort = new AbortController();
    const entry: InFlight = { replyId, replyTo, text: '', abort, abortedBy: null, done: Promise.resolve() };
    this.inFlight.set(sessionId, entry);
    // Start on the next turn of the event loop so the caller's ack reaches the client before the first delta.
    entry.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runReply(s, entry))
      .finally(() => this.inFlight.delete(sessionId));
  }

  private async runReply(s: SessionContext, f: InFlight): Promise<void> {
    const { ctx } = this;
    const sessionId = s.session.id;
    const { provider } = ctx.providers(s.condition);
    const startedAt = ctx.now();
    const watchdog = setTimeout(() => {
      f.abortedBy ??= 'watchdog';
      f.abort.abort();
    }, this.replyTimeoutMs);
    let result: CompletionResult;
    try {
      const history = ctx.store.messages.listForSession(sessionId);
      result = await provider.complete({
        model: s.condition.model,
        messages: buildConversation(s.condition, s.task, history),
        temperature: s.condition.temperature,
        maxTokens: s.condition.max_tokens,
        signal: f.abort.signal,
        onDelta: (text) => {
          if (text.length === 0) return;
          f.text += text;
          ctx.push(sessionId, 'chat:delta', { replyId: f.replyId, text });
        },
      });
    } catch (err) {
      // Providers should not throw; if one does, the reply still ends as a stored error.
      ctx.log.error({ err, sessionId }, 'provider threw');
      result = {
        text: f.text,
        usage: null,
        provider: provider.name,
        model: s.condition.model,
        providerUrl: null,
        systemFingerprint: null,
        finishReason: 'error',
        ttftMs: null,
        latencyMs: ctx.now() - startedAt,
        attempts: 1,
        interrupted: f.text.length > 0,
        error: { kind: 'network', message: (err as Error).message, retryable: true },
      };
    } finally {
      clearTimeout(watchdog);
    }
    try {
      this.storeReply(s, f, result);
    } catch (err) {
      ctx.log.error({ err, sessionId }, 'could not store reply');
      ctx.push(sessionId, 'chat:error', { replyId: f.replyId, message: 'The reply could not be saved. Please press Retry.', retryable: true, partial: null });
    }
  }

  private storeReply(s: SessionContext, f: InFlight, result: CompletionResult): void {
    const { ctx } = this;
    const { store } = ctx;
    const sessionId = s.session.id;
    const text = result.text.length > 0 || f.text.length === 0 ? result.text : f.text;
    let error: ProviderError | null = result.error ?? null;
    let status: MessageStatus;
    const failedByUs = (f.abortedBy === 'watchdog' || f.abortedBy === 'shutdown') && result.finishReason === 'aborted';
    if (failedByUs) {
      status = text.length > 0 ? 'interrupted' : 'error';
      error =
        f.abortedBy === 'watchdog'
          ? { kind: 'timeout', message: `no complete reply within ${this.replyTimeoutMs} ms`, retryable: true }
          : { kind: 'network', message: 'the server shut down during the reply', retryable: true };
    } else if (result.finishReason === 'aborted') status = 'stopped';
    else if (error) status = result.interrupted || text.length > 0 ? 'interrupted' : 'error';
    else status = 'complete';

    const now = ctx.now();
    const params = { temperature: s.condition.temperature, max_tokens: s.condition.max_tokens };
    const tokens = countTokens(text);
    const row = store.transaction(() => {
      const provenance = {
        provider: result.provider,
        providerUrl: result.providerUrl,
        model: result.model,
        requestedModel: s.condition.model,
        params,
        usage: result.usage,
        ttftMs: result.ttftMs,
        durationMs: result.latencyMs,
        finishReason: failedByUs ? 'error' : result.finishReason,
        interrupted: status === 'interrupted',
        attempts: result.attempts,
        error,
      };
      const seq = store.events.append(
        sessionId,
        'reply.finished',
        { replyId: f.replyId, replyTo: f.replyTo, status, text, tokens, ...provenance, systemFingerprint: result.systemFingerprint },
        now,
        null,
      );
      const message: MessageRow = {
        id: f.replyId,
        sessionId,
        eventSeq: seq,
        role: 'assistant',
        text,
        clientId: null,
        replyTo: f.replyTo,
        status,
        tokens,
        ...provenance,
        createdAt: now,
      };
      store.messages.insert(message);
      return message;
    });
    const view = messageView(row);
    if (status === 'complete' || status === 'stopped') ctx.push(sessionId, 'chat:done', { message: view });
    else
      ctx.push(sessionId, 'chat:error', {
        replyId: f.replyId,
        message: participantErrorMessage(error?.kind ?? 'network'),
        retryable: error?.retryable ?? true,
        partial: view,
      });
  }
}

function emptyProvenance(): Pick<
  MessageRow,
  'provider' | 'providerUrl' | 'model' | 'requestedModel' | 'params' | 'usage' | 'ttftMs' | 'durationMs' | 'finishReason' | 'interrupted' | 'attempts' | 'error'
> {
  return {
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
