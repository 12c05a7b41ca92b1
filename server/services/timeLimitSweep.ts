import { loadSession, type ServiceContext } from './serviceContext';
import { expireIfDue, overdueSessions } from './lifecycle';
import { buildSessionState } from './sessionState';
import type { InFlightView } from './inFlightReply';
import { PeriodicJob } from '../cluster/periodic';

/** What the sweep needs from the chat service: end a session's reply before its session ends. */
export interface ReplyControl {
  inFlightView(sessionId: string): InFlightView | null;
  /** Aborts the session's reply in flight because its time ran out and waits until it is stored. */
  endReplyAtTimeLimit(sessionId: string): Promise<void>;
  /** Ends every reply in flight whose session's deadline has passed (they may belong to sessions that already ended). */
  endRepliesPastDeadline(): Promise<void>;
}

/** Name of the cluster-wide lock the session-expiry half of the sweep runs under (one node at a time). */
export const TIME_LIMIT_SWEEP_LOCK = 'time-limit-sweep';

/**
 * Server-side time limit. Without it a session's time limit is applied only while one of its sockets is
 * connected (the per-socket timer) or at the participant's next action, so exports and the live monitor
 * would show an abandoned session as active long after its deadline. Every `intervalMs` this ends each
 * overdue working session as timed_out — its reply in flight first (stored, so the trajectory reads
 * reply.finished → session.timed_out), then the session.timed_out + step + completion events in one
 * transaction (expireIfDue) — and pushes the new state to any connected socket.
 * On a cluster every node ends its own replies past their deadline, but only the node holding the
 * TIME_LIMIT_SWEEP_LOCK expires sessions, and it leaves a session whose reply streams on another node to
 * that node (its reply's own deadline timer ends it; a later pass then expires the session).
 * The interval is unref'd (never keeps the process alive) and stopped by stop().
 */
export class TimeLimitSweep extends PeriodicJob<number> {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly replies: ReplyControl,
    intervalMs: number,
  ) {
    super('time-limit sweep', intervalMs, 0, ctx.log);
  }

  /** One pass (runOnce: runs never overlap). Resolves with the number of sessions it timed out (0 when another node sweeps). */
  protected async run(): Promise<number> {
    await this.replies.endRepliesPastDeadline();
    const run = await this.ctx.store.locks.tryRun(TIME_LIMIT_SWEEP_LOCK, () => this.expireOverdueSessions());
    return run.ran ? run.value : 0;
  }

  private async expireOverdueSessions(): Promise<number> {
    const { ctx } = this;
    let timedOut = 0;
    for (const due of await overdueSessions(ctx, ctx.now())) {
      const sessionId = due.session.id;
      try {
        if (this.replies.inFlightView(sessionId)) await this.replies.endReplyAtTimeLimit(sessionId);
        // A reply streaming on another node: that node ends it at the deadline; expire on a later pass.
        else if (await ctx.store.replyLeases.getBySession(sessionId)) continue;
        // Reload: the participant may have acted (e.g. submitted) while we waited for the reply.
        const s = await loadSession(ctx, sessionId);
        if (!(await expireIfDue(ctx, s))) continue;
        timedOut++;
        ctx.push(sessionId, 'session:state', await buildSessionState(ctx, sessionId, this.replies.inFlightView(sessionId)));
      } catch (err) {
        ctx.log.warn({ err, sessionId }, 'could not apply the time limit');
      }
    }
    return timedOut;
  }
}
