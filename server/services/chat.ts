import crypto from 'node:crypto';
import type { ChatRetry, ChatRetryAck, ChatSend, ChatSendAck, ChatStop, ChatStopAck } from '../../common/events';
import type { MessageRow } from '../db/store';
import { deadlineOf, ServiceError, type ServiceContext, type SessionContext } from './context';
import { requireActive, requireActiveIn } from './lifecycle';
import { unansweredUserMessage } from './conversation';
import { messageView, type InFlightView } from './state';
import { DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from './replyCheckpoint';
import { TimeLimitSweep } from './timeLimitSweep';
import { storeUserMessage } from './userMessage';
import { abortReply, newInFlight, type InFlight } from './inFlightReply';
import { runReply, type ReplyRunOptions } from './replyRun';

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
  private readonly runOptions: ReplyRunOptions;
  /** Ends overdue sessions even when no socket is connected; started here, stopped by shutdown(). */
  readonly timeLimitSweep: TimeLimitSweep;

  constructor(
    private readonly ctx: ServiceContext,
    options: ChatServiceOptions = {},
  ) {
    this.runOptions = {
      replyTimeoutMs: options.replyTimeoutMs ?? 5 * 60_000,
      abortGraceMs: options.abortGraceMs ?? 1_000,
      checkpointPolicy: options.checkpoint ?? DEFAULT_CHECKPOINT_POLICY,
    };
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
    abortReply(f, 'participant');
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
    for (const f of all) abortReply(f, 'shutdown');
    await Promise.all(all.map((f) => f.done));
  }

  /** Ends the session's reply in flight because the session's time ran out; resolves once it is stored. */
  async endReplyAtTimeLimit(sessionId: string): Promise<void> {
    const f = this.inFlight.get(sessionId);
    if (!f) return;
    abortReply(f, 'time_limit');
    await f.done;
  }

  /** Ends every reply in flight whose session's deadline has passed (time-limit sweep). */
  async endRepliesPastDeadline(): Promise<void> {
    const now = this.ctx.now();
    const due = [...this.inFlight.values()].filter((f) => f.deadline !== null && now >= f.deadline);
    for (const f of due) abortReply(f, 'time_limit');
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

  /**
   * Puts a reply whose reply.started was stored before a restart back in flight (server/wizard/recoverReviews.ts:
   * a reply waiting for a researcher). Nothing happens when the session already has a reply in flight.
   */
  resumeReply(s: SessionContext, replyId: string, replyTo: string): void {
    if (this.inFlight.has(s.session.id) || this.closing) return;
    this.startReply(s, replyId, replyTo);
  }

  private startReply(s: SessionContext, replyId: string, replyTo: string): void {
    const sessionId = s.session.id;
    const entry = newInFlight(sessionId, replyId, replyTo, deadlineOf(s));
    this.inFlight.set(sessionId, entry);
    // Start on the next turn of the event loop so the caller's ack reaches the client before the first delta.
    // runReply never rejects; the catch is a last resort so a bug can never become an unhandled rejection.
    entry.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => runReply(this.ctx, s, entry, this.runOptions))
      .catch((err: unknown) => this.ctx.log.error({ err, sessionId }, 'reply failed unexpectedly'))
      .finally(() => {
        if (this.inFlight.get(sessionId) === entry) this.inFlight.delete(sessionId);
      });
  }
}
