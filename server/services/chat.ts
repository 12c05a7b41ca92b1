import crypto from 'node:crypto';
import type { ChatRetry, ChatRetryAck, ChatSend, ChatSendAck, ChatStop, ChatStopAck } from '../../common/events';
import type { MessageRow, StoreTx } from '../../lib/storage';
import type { ClientTs } from '../../common/ids';
import { deadlineOf, interactiveContext, ServiceError, type ServiceContext, type SessionContext } from './serviceContext';
import { requireActive, requireActiveIn } from './lifecycle';
import { unansweredUserMessage } from './conversation';
import { messageView } from './sessionState';
import type { InFlightView } from './inFlightReply';
import { DEFAULT_CHECKPOINT_POLICY, ReplyCheckpoints, type CheckpointPolicy } from './replyCheckpoint';
import { TimeLimitSweep } from './timeLimitSweep';
import { storeUserMessage } from './userMessage';
import { abortReply, newInFlight, type InFlight } from './inFlightReply';
import { runReply } from './replyRun';
import type { ReplyRunOptions } from './replyRunOptions';
import { adoptReplyLease } from './recovery';
import { aloneOnStore, coordinationFromEnv, type Coordination } from '../cluster/coordination';
import type { ReplyLeaseKeeper } from '../cluster/leases';
import type { ReplyTakeoverSweep } from '../cluster/leasesTakeover';
import { startReplyCoordination } from '../cluster/leasesStart';

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
  /** This node's lease owner and lease timings (default coordinationFromEnv(): TANDEM_NODE_ID, TANDEM_LEASE_*). */
  coordination?: Coordination;
}

/**
 * Participant chat: stores each message once (by clientId) before acknowledging, streams the assistant's
 * reply to the session's sockets, and stores the reply with its provenance when it ends.
 * At most one reply is in flight per session, cluster-wide: the reply's lease (reply_leases) is taken in the
 * transaction that stores reply.started and released in the one that stores its outcome, so two nodes never
 * both start one; the in-process maps below only spare this node's own races a round trip. Every reply ends
 * (done, stopped, failed or watchdog), so a session never gets stuck; one whose node died is stored
 * interrupted by another node's takeover (cluster/leasesTakeover.ts).
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
  readonly coordination: Coordination;
  /** Refreshes this node's reply leases and picks up Stops that reached other nodes. */
  readonly leases: ReplyLeaseKeeper;
  /** Stores dead nodes' replies as interrupted (one node at a time). */
  readonly takeover: ReplyTakeoverSweep;

  constructor(
    private readonly ctx: ServiceContext,
    options: ChatServiceOptions = {},
  ) {
    this.runOptions = {
      replyTimeoutMs: options.replyTimeoutMs ?? 5 * 60_000,
      abortGraceMs: options.abortGraceMs ?? 1_000,
      checkpoints: new ReplyCheckpoints(ctx.store, ctx.now, ctx.log, options.checkpoint ?? DEFAULT_CHECKPOINT_POLICY),
    };
    this.coordination = options.coordination ?? coordinationFromEnv(process.env, { singleNode: aloneOnStore(ctx.store.engine) });
    this.timeLimitSweep = new TimeLimitSweep(ctx, this, options.timeLimitSweepMs ?? 1_000);
    this.timeLimitSweep.start();
    ({ leases: this.leases, takeover: this.takeover } = startReplyCoordination(ctx, this.coordination, {
      ids: () => [...this.inFlight.values()].map((f) => f.replyId),
      abort: (replyId, cause) => {
        for (const f of this.inFlight.values()) if (f.replyId === replyId) abortReply(f, cause);
      },
      resumeReview: async (replyId) => {
        const review = await ctx.store.reviews.get(replyId);
        return ctx.wizard && review ? ctx.wizard.resumeOpenReview(review, this) : false;
      },
    }));
  }

  inFlightView(sessionId: string): InFlightView | null {
    const f = this.inFlight.get(sessionId);
    // Only the text already pushed: the deltas still to come continue exactly from there.
    return f ? { replyId: f.replyId, replyTo: f.replyTo, text: f.text.slice(0, f.text.length - f.unpushed.length) } : null;
  }

  async send(sessionId: string, p: ChatSend): Promise<ChatSendAck> {
    // The participant waits for this ack: its store call goes ahead of background writes.
    const ctx = interactiveContext(this.ctx);
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
      // One store call checks the session, stores the message with its events and takes the reply's lease
      // (a resend: stores nothing; another reply active on any node: busy).
      const stored = await storeUserMessage(ctx, sessionId, p, replyId, this.coordination.owner);
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
    if (!f) return this.stopElsewhere(sessionId, p);
    // A Stop that arrives after the reply's outcome was decided (racing its completion) changes nothing.
    if (f.finished || (p.replyId !== undefined && p.replyId !== f.replyId)) return { stopped: false };
    // Aborted first (synchronously), so the stop takes effect even if the event write waits for a transaction.
    abortReply(f, 'participant');
    await this.ctx.store.interactive.events.append(sessionId, 'chat.stop_requested', { replyId: f.replyId }, this.ctx.now(), p.clientTs);
    return { stopped: true };
  }

  /**
   * Stops the session's reply wherever it runs and waits until its outcome is stored, so that a submission comes
   * after the reply in the trajectory. A reply on another node is stopped through its lease (that node aborts it at
   * its next heartbeat and stores it); its lease is waited for at most two heartbeats and a second. The participant
   * waits for this (a Stop, a submission), so its own reads and writes go on store.interactive.
   */
  async stopAndSettle(sessionId: string, clientTs: ClientTs): Promise<void> {
    await this.starting.get(sessionId);
    if (this.inFlight.has(sessionId)) {
      await this.stop(sessionId, { clientTs });
      return this.settled(sessionId);
    }
    if (!(await this.stopElsewhere(sessionId, { clientTs })).stopped) return;
    const until = performance.now() + this.coordination.heartbeatMs * 2 + 1_000;
    while (performance.now() < until && (await this.ctx.store.interactive.replyLeases.getBySession(sessionId))) await new Promise((r) => setTimeout(r, 50));
  }

  /**
   * A Stop for a reply this node does not run: it sets the stop flag of the session's lease, and the node that
   * runs the reply aborts it at its next heartbeat (within heartbeatMs). No lease: no reply is active anywhere.
   */
  private async stopElsewhere(sessionId: string, p: ChatStop): Promise<ChatStopAck> {
    const replyId = await this.ctx.store.interactive.replyLeases.requestStop(sessionId, p.replyId);
    if (replyId === null) return { stopped: false };
    await this.ctx.store.interactive.events.append(sessionId, 'chat.stop_requested', { replyId }, this.ctx.now(), p.clientTs);
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
        const now = this.ctx.now();
        await this.acquireLease(tx, sessionId, replyId, last.id, now);
        await tx.events.append(sessionId, 'reply.started', { replyId, replyTo: last.id, retry: true }, now, p.clientTs);
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
    await this.takeover.stop();
    // Sends past their checks are writing their message: let them start their reply, then abort it like the rest.
    await Promise.all(this.starting.values());
    const all = [...this.inFlight.values()];
    for (const f of all) abortReply(f, 'shutdown');
    await Promise.all(all.map((f) => f.done));
    this.runOptions.checkpoints.stop();
    // Heartbeats went on until every reply was stored (and its lease released).
    await this.leases.stop();
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
    // Streaming on another node: its lease names it.
    const lease = await this.ctx.store.interactive.replyLeases.getBySession(sessionId);
    if (lease && lease.replyTo === userMessageId) return lease.replyId;
    const replies = (await this.ctx.store.interactive.messages.listForSession(sessionId)).filter((m) => m.replyTo === userMessageId);
    return replies.at(-1)?.id ?? null;
  }

  /** Takes the session's reply lease inside send/retry's transaction; another node's active reply → busy (rolls back). */
  private async acquireLease(tx: StoreTx, sessionId: string, replyId: string, replyTo: string, now: number): Promise<void> {
    if (!(await tx.replyLeases.acquire({ sessionId, replyId, replyTo, startedAt: now, owner: this.coordination.owner })))
      throw new ServiceError('busy', 'the assistant is still answering; wait or press Stop');
  }

  private refuseWhileClosing(): void {
    if (this.closing) throw new ServiceError('busy', 'the server is restarting; please send again in a moment');
  }

  /**
   * Puts a reply whose reply.started was stored before a restart back in flight on this node, with its lease
   * (server/wizard/recoverReviews.ts and the periodic takeover: a reply waiting for a researcher). False, and
   * nothing happens, when the session already has a reply in flight here or another live node holds the lease.
   */
  async resumeReply(s: SessionContext, replyId: string, replyTo: string): Promise<boolean> {
    if (this.inFlight.has(s.session.id) || this.closing) return false;
    // This node takes the reply's lease first (its previous incarnation's or a dead node's): a live node that
    // holds it keeps the reply, and this one's heartbeat will not find it lost.
    if (!(await adoptReplyLease(this.ctx.store, this.coordination, { sessionId: s.session.id, replyId, replyTo }, this.ctx.now()))) return false;
    if (this.inFlight.has(s.session.id) || this.closing) return false;
    this.startReply(s, replyId, replyTo);
    return true;
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
