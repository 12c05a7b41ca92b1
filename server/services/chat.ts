import crypto from 'node:crypto';
import type { ChatRetry, ChatRetryAck, ChatSend, ChatSendAck, ChatStop, ChatStopAck } from '../../common/events';
import type { CompletionResult, ProviderError } from '../llm/provider';
import { countTokens } from '../../common/tokens';
import { isStoreUnavailable, type MessageRow } from '../db/store';
import { deadlineOf, ServiceError, type ServiceContext, type SessionContext } from './context';
import { requireActive, requireActiveIn } from './lifecycle';
import { buildConversation, unansweredUserMessage } from './conversation';
import { messageView, participantErrorMessage, type InFlightView } from './state';
import { DEFAULT_CHECKPOINT_POLICY, ReplyCheckpointer, type CheckpointPolicy } from './replyCheckpoint';
import { TimeLimitSweep } from './timeLimitSweep';
import { replyOutcome, type AbortCause } from './replyOutcome';
import { storeUserMessage } from './userMessage';

interface InFlight extends InFlightView {
  sessionId: string;
  /** The session's deadline (ms, server clock) when the reply started; null without a time limit. */
  deadline: number | null;
  abort: AbortController;
  abortedBy: AbortCause | null;
  /** Set once the reply's outcome is decided: later deltas (from a provider we gave up on) are dropped. */
  finished: boolean;
  /** How much of `text` has been pushed to the participant as chat:delta. */
  pushed: number;
  /** A push of the text not yet sent is scheduled for the end of this event-loop turn. */
  pushScheduled: boolean;
  done: Promise<void>;
}

export interface ChatServiceOptions {
  /** Hard upper bound for one reply, after which it is aborted and stored as an error (default 5 min). */
  replyTimeoutMs?: number;
  /**
   * After an abort (Stop, watchdog, time limit, shutdown), how long to wait for the provider to return before
   * giving up on it and storing what had streamed (default 1 s). Guards against a provider that ignores
   * its abort signal, which would otherwise keep the session busy (and shutdown waiting) forever.
   */
  abortGraceMs?: number;
  /** How often a streaming reply is checkpointed for crash recovery (default every 500 ms or 400 chars). */
  checkpoint?: CheckpointPolicy;
  /** Period of the server-side time-limit sweep (default 1000 ms; 0 = off). */
  timeLimitSweepMs?: number;
}

/** How long a finished reply is retried while the store is unavailable before it is left to start-up recovery. */
const STORE_RETRY_MS = 30_000;

/** setTimeout silently fires at once for delays beyond 2^31−1 ms. */
const timerDelay = (ms: number) => Math.min(Math.max(0, ms), 2 ** 31 - 1);

/**
 * Participant chat: stores each message once (by clientId) before acknowledging, streams the assistant's
 * reply to the session's sockets, and stores the reply with its provenance when it ends.
 * At most one reply is in flight per session, and every reply ends (done, stopped, failed or watchdog),
 * so a session never gets stuck.
 */
export class ChatService {
  private readonly inFlight = new Map<string, InFlight>();
  /** Sessions whose send/retry passed its checks and is writing (resolves once it started its reply or failed). */
  private readonly starting = new Map<string, Promise<void>>();
  /** Set by shutdown(): no new reply may start (it would outlive the database). */
  private closing = false;
  private readonly replyTimeoutMs: number;
  private readonly abortGraceMs: number;
  private readonly checkpointPolicy: CheckpointPolicy;
  /** Ends overdue sessions even when no socket is connected; started here, stopped by shutdown(). */
  readonly timeLimitSweep: TimeLimitSweep;

  constructor(
    private readonly ctx: ServiceContext,
    options: ChatServiceOptions = {},
  ) {
    this.replyTimeoutMs = options.replyTimeoutMs ?? 5 * 60_000;
    this.abortGraceMs = options.abortGraceMs ?? 1_000;
    this.checkpointPolicy = options.checkpoint ?? DEFAULT_CHECKPOINT_POLICY;
    this.timeLimitSweep = new TimeLimitSweep(ctx, this, options.timeLimitSweepMs ?? 1_000);
    this.timeLimitSweep.start();
  }

  inFlightView(sessionId: string): InFlightView | null {
    const f = this.inFlight.get(sessionId);
    // Only the text already pushed: the deltas still to come continue exactly from there.
    return f ? { replyId: f.replyId, replyTo: f.replyTo, text: f.text.slice(0, f.pushed) } : null;
  }

  async send(sessionId: string, p: ChatSend): Promise<ChatSendAck> {
    // The participant waits for this ack: its store call goes ahead of background writes.
    const ctx: ServiceContext = { ...this.ctx, store: this.ctx.store.interactive };
    const starting = this.starting.get(sessionId);
    if (starting) {
      // Another send of this session is being stored (maybe this very message, resent): decide after it.
      await starting;
      return this.send(sessionId, p);
    }
    if (this.inFlight.has(sessionId) || this.closing) {
      // A resend racing its original can arrive here after the original was stored and its reply started.
      const stored = await ctx.store.messages.findByClientId(sessionId, p.clientId);
      if (stored) return this.duplicateAck(sessionId, stored, p);
      this.refuseWhileClosing();
      throw new ServiceError('busy', 'the assistant is still answering; wait or press Stop');
    }

    // Reserved before the first await of the write, so a second message of this session waits its turn ('busy').
    let started!: () => void;
    this.starting.set(sessionId, new Promise<void>((resolve) => (started = resolve)));
    try {
      const replyId = crypto.randomUUID();
      // One store call checks the session and stores the message with its events (a resend: stores nothing).
      const stored = await storeUserMessage(ctx, sessionId, p, replyId);
      if (stored.duplicate) return this.duplicateAck(sessionId, stored.message, p);
      // Acknowledged only now, after COMMIT. Every tab of the session shows the message (the sender de-duplicates).
      const view = messageView(stored.message);
      this.ctx.push(sessionId, 'chat:message', { message: view });
      this.startReply(stored.s, replyId, stored.message.id);
      return { message: view, replyId, duplicate: false };
    } finally {
      this.starting.delete(sessionId);
      started();
    }
  }

  private async duplicateAck(sessionId: string, existing: MessageRow, p: ChatSend): Promise<ChatSendAck> {
    // The same id with other words is not a resend: refusing it is better than dropping the new text silently.
    if (existing.text !== p.text)
      throw new ServiceError('conflict', `message id "${p.clientId}" was already used for a different message; nothing was stored`, 'clientId');
    return { message: messageView(existing), replyId: await this.replyIdFor(sessionId, existing.id), duplicate: true };
  }

  async stop(sessionId: string, p: ChatStop): Promise<ChatStopAck> {
    const f = this.inFlight.get(sessionId);
    // A Stop that arrives after the reply's outcome was decided (racing its completion) changes nothing.
    if (!f || f.finished || (p.replyId !== undefined && p.replyId !== f.replyId)) return { stopped: false };
    // Aborted first (synchronously), so the stop takes effect even if the event write waits for a transaction.
    this.abortReply(f, 'participant');
    await this.ctx.store.events.append(sessionId, 'chat.stop_requested', { replyId: f.replyId }, this.ctx.now(), p.clientTs);
    return { stopped: true };
  }

  /** Regenerates the reply to the last participant message when that message has no usable reply. */
  async retry(sessionId: string, p: ChatRetry): Promise<ChatRetryAck> {
    const s = await requireActive(this.ctx, sessionId, ['workspace']);
    if (this.inFlight.has(sessionId) || this.starting.has(sessionId)) throw new ServiceError('busy', 'the assistant is still answering');
    this.refuseWhileClosing();
    let started!: () => void;
    this.starting.set(sessionId, new Promise<void>((resolve) => (started = resolve)));
    try {
      const replyId = crypto.randomUUID();
      const lastUser = await this.ctx.store.transaction(async (tx) => {
        await requireActiveIn(this.ctx, tx, sessionId, ['workspace']);
        const last = unansweredUserMessage(await tx.messages.listForSession(sessionId));
        if (!last) throw new ServiceError('conflict', 'nothing to retry: the last message already has an answer');
        await tx.events.append(sessionId, 'reply.started', { replyId, replyTo: last.id, retry: true }, this.ctx.now(), p.clientTs);
        return last;
      });
      this.startReply(s, replyId, lastUser.id);
      return { replyId };
    } finally {
      this.starting.delete(sessionId);
      started();
    }
  }

  /** Stops the time-limit sweep, aborts every reply in flight and waits until each is stored (server shutdown). */
  async shutdown(): Promise<void> {
    this.closing = true;
    await this.timeLimitSweep.stop();
    // Sends past their checks are writing their message: let them start their reply, then abort it like the rest.
    await Promise.all(this.starting.values());
    const all = [...this.inFlight.values()];
    for (const f of all) this.abortReply(f, 'shutdown');
    await Promise.all(all.map((f) => f.done));
  }

  /** Ends the session's reply in flight because the session's time ran out; resolves once it is stored. */
  async endReplyAtTimeLimit(sessionId: string): Promise<void> {
    const f = this.inFlight.get(sessionId);
    if (!f) return;
    this.abortReply(f, 'time_limit');
    await f.done;
  }

  /** Ends every reply in flight whose session's deadline has passed (time-limit sweep). */
  async endRepliesPastDeadline(): Promise<void> {
    const now = this.ctx.now();
    const due = [...this.inFlight.values()].filter((f) => f.deadline !== null && now >= f.deadline);
    for (const f of due) this.abortReply(f, 'time_limit');
    await Promise.all(due.map((f) => f.done));
  }

  /** Number of replies streaming right now (monitoring, tests). */
  get repliesInFlight(): number {
    return this.inFlight.size;
  }

  /** Waits for the session's reply in flight, if any, to be stored (tests, submit). */
  async settled(sessionId: string): Promise<void> {
    await this.inFlight.get(sessionId)?.done;
  }

  private async replyIdFor(sessionId: string, userMessageId: string): Promise<string | null> {
    const f = this.inFlight.get(sessionId);
    if (f && f.replyTo === userMessageId) return f.replyId;
    const replies = (await this.ctx.store.interactive.messages.listForSession(sessionId)).filter((m) => m.replyTo === userMessageId);
    return replies.at(-1)?.id ?? null;
  }

  private refuseWhileClosing(): void {
    if (this.closing) throw new ServiceError('busy', 'the server is restarting; please send again in a moment');
  }

  private startReply(s: SessionContext, replyId: string, replyTo: string): void {
    const sessionId = s.session.id;
    const entry: InFlight = {
      sessionId,
      replyId,
      replyTo,
      text: '',
      deadline: deadlineOf(s),
      abort: new AbortController(),
      abortedBy: null,
      finished: false,
      pushed: 0,
      pushScheduled: false,
      done: Promise.resolve(),
    };
    this.inFlight.set(sessionId, entry);
    // Start on the next turn of the event loop so the caller's ack reaches the client before the first delta.
    // runReply never rejects; the catch is a last resort so a bug can never become an unhandled rejection.
    entry.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runReply(s, entry))
      .catch((err: unknown) => this.ctx.log.error({ err, sessionId }, 'reply failed unexpectedly'))
      .finally(() => {
        if (this.inFlight.get(sessionId) === entry) this.inFlight.delete(sessionId);
      });
  }

  private abortReply(f: InFlight, cause: AbortCause): void {
    if (f.finished) return;
    f.abortedBy ??= cause;
    f.abort.abort();
  }

  private async runReply(s: SessionContext, f: InFlight): Promise<void> {
    const { ctx } = this;
    const sessionId = s.session.id;
    const startedAt = ctx.now();
    let firstDeltaAt: number | null = null;
    const timers = [setTimeout(() => this.abortReply(f, 'watchdog'), timerDelay(this.replyTimeoutMs))];
    // The session's time limit ends its reply too (the sweep also does, for a clock that jumps).
    if (f.deadline !== null) timers.push(setTimeout(() => this.abortReply(f, 'time_limit'), timerDelay(f.deadline - startedAt)));
    let providerName: string = s.condition.provider;
    let checkpoint: ReplyCheckpointer | undefined;
    // What we store when the provider threw, or ignored the abort and we stopped waiting for it.
    const fallback = (finishReason: string, error?: ProviderError): CompletionResult => ({
      text: f.text,
      usage: null,
      provider: providerName,
      model: s.condition.model,
      providerUrl: null,
      systemFingerprint: null,
      finishReason,
      ttftMs: firstDeltaAt === null ? null : firstDeltaAt - startedAt,
      latencyMs: ctx.now() - startedAt,
      attempts: 1,
      interrupted: error !== undefined && f.text.length > 0,
      ...(error ? { error } : {}),
    });
    let result: CompletionResult;
    try {
      const { provider } = ctx.providers(s.condition);
      providerName = provider.name;
      checkpoint = new ReplyCheckpointer(ctx.store, { replyId: f.replyId, sessionId, provider: provider.name }, () => f.text, ctx.now, ctx.log, this.checkpointPolicy);
      const cp = checkpoint;
      const history = await ctx.store.messages.listForSession(sessionId);
      const call = provider.complete({
        model: s.condition.model,
        messages: buildConversation(s.condition, s.task, history),
        temperature: s.condition.temperature,
        maxTokens: s.condition.max_tokens,
        signal: f.abort.signal,
        onDelta: (text) => {
          if (f.finished || text.length === 0) return;
          firstDeltaAt ??= ctx.now();
          f.text += text;
          cp.onText();
          this.scheduleDeltaPush(f);
          if (f.deadline !== null && ctx.now() >= f.deadline) this.abortReply(f, 'time_limit');
        },
      });
      result = await this.untilSettledOrAbandoned(call, f, () => fallback('aborted'));
    } catch (err) {
      // Providers should not throw; if one does (or cannot even be built), the reply still ends as a stored error.
      ctx.log.error({ err, sessionId }, 'provider threw');
      result = fallback('error', { kind: 'network', message: (err as Error).message, retryable: true });
    } finally {
      for (const t of timers) clearTimeout(t);
      f.finished = true;
      // Every streamed fragment reaches the participant before chat:done / chat:error.
      this.pushPendingDelta(f);
    }
    try {
      // A checkpoint write still in flight lands before the reply's transaction deletes the row.
      await checkpoint?.close();
      await this.storeReplyRetrying(s, f, result);
    } catch (err) {
      // The checkpoint (if any) stays: a restart's recovery stores this reply as interrupted with its text.
      ctx.log.error({ err, sessionId }, 'could not store reply');
      ctx.push(sessionId, 'chat:error', { replyId: f.replyId, message: 'The reply could not be saved. Please press Retry.', retryable: true, partial: null });
    }
  }

  /**
   * Fragments of one reply that arrive together (one socket read, or one batch from the provider thread)
   * go out as one chat:delta, pushed by process.nextTick, i.e. as soon as the code handling that read is
   * done. When the server keeps up this is one push per provider chunk; when it falls behind, the chunks
   * that queued up meanwhile share one socket write. (setImmediate would also batch across reads, but
   * waits for the whole poll phase: +17 ms at the p50 with 500 participants, BENCHMARKS.md.)
   */
  private scheduleDeltaPush(f: InFlight): void {
    if (f.pushScheduled) return;
    f.pushScheduled = true;
    process.nextTick(() => this.pushPendingDelta(f));
  }

  private pushPendingDelta(f: InFlight): void {
    f.pushScheduled = false;
    if (f.pushed >= f.text.length) return;
    const text = f.text.slice(f.pushed);
    f.pushed = f.text.length;
    this.ctx.push(f.sessionId, 'chat:delta', { replyId: f.replyId, text });
  }

  /**
   * The provider's result, or — once the reply was aborted and the provider has not returned within the
   * grace period — the fallback, so a provider that ignores its signal cannot keep the session busy.
   */
  private async untilSettledOrAbandoned(call: Promise<CompletionResult>, f: InFlight, fallback: () => CompletionResult): Promise<CompletionResult> {
    let grace: NodeJS.Timeout | undefined;
    const abandoned = new Promise<CompletionResult>((resolve) => {
      const giveUp = () => {
        grace = setTimeout(() => {
          this.ctx.log.warn({ sessionId: f.sessionId, replyId: f.replyId, abortedBy: f.abortedBy }, 'provider ignored abort; reply ended without it');
          resolve(fallback());
        }, this.abortGraceMs);
      };
      if (f.abort.signal.aborted) giveUp();
      else f.abort.signal.addEventListener('abort', giveUp, { once: true });
    });
    // If we stop waiting, a later rejection of the abandoned call must not become an unhandled rejection.
    call.catch(() => {});
    try {
      return await Promise.race([call, abandoned]);
    } finally {
      clearTimeout(grace);
    }
  }

  /**
   * storeReply, tried again while the store is briefly unavailable (a PostgreSQL restart): the reply's text is
   * in memory and its id makes the write idempotent, so an outage of up to STORE_RETRY_MS loses no reply.
   */
  private async storeReplyRetrying(s: SessionContext, f: InFlight, result: CompletionResult): Promise<void> {
    const started = performance.now();
    for (let delay = 200; ; delay = Math.min(delay * 2, 3_000)) {
      try {
        return await this.storeReply(s, f, result);
      } catch (err) {
        if (!isStoreUnavailable(err) || performance.now() - started + delay > STORE_RETRY_MS) throw err;
        this.ctx.log.warn({ sessionId: f.sessionId, replyId: f.replyId, retryInMs: delay }, 'store unavailable; storing the reply again shortly');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async storeReply(s: SessionContext, f: InFlight, result: CompletionResult): Promise<void> {
    const { ctx } = this;
    const { store } = ctx;
    const sessionId = s.session.id;
    const { status, text, error, finishReason } = replyOutcome(result, f.text, f.abortedBy, this.replyTimeoutMs);
    const now = ctx.now();
    const params = { temperature: s.condition.temperature, max_tokens: s.condition.max_tokens };
    const tokens = countTokens(text);
    const row = await store.transaction(async (tx) => {
      // Stored by an earlier attempt whose COMMIT went through but whose answer was lost with the connection.
      const already = await tx.messages.get(f.replyId);
      if (already) return already;
      const provenance = {
        provider: result.provider,
        providerUrl: result.providerUrl,
        model: result.model,
        requestedModel: s.condition.model,
        params,
        usage: result.usage,
        ttftMs: result.ttftMs,
        durationMs: result.latencyMs,
        finishReason,
        interrupted: status === 'interrupted',
        attempts: result.attempts,
        error,
      };
      const seq = await tx.events.append(
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
      await tx.messages.insert(message);
      await tx.replyProgress.delete(f.replyId);
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
