import { loadSession, type ServiceContext } from './context';
import { expireIfDue, overdueSessions } from './lifecycle';
import { buildSessionState, type InFlightView } from './state';

/** What the sweep needs from the chat service: end a session's reply before its session ends. */
export interface ReplyControl {
  inFlightView(sessionId: string): InFlightView | null;
  /** Aborts the session's reply in flight because its time ran out and waits until it is stored. */
  endReplyAtTimeLimit(sessionId: string): Promise<void>;
  /** Ends every reply in flight whose session's deadline has passed (they may belong to sessions that already ended). */
  endRepliesPastDeadline(): Promise<void>;
}

/**
 * Server-side time limit. Without it a session's time limit is applied only while one of its sockets is
 * connected (the per-socket timer) or at the participant's next action, so exports and the live monitor
 * would show an abandoned session as active long after its deadline. Every `intervalMs` this ends each
 * overdue working session as timed_out — its reply in flight first (stored, so the trajectory reads
 * reply.finished → session.timed_out), then the session.timed_out + step + completion events in one
 * transaction (expireIfDue) — and pushes the new state to any connected socket.
 * The interval is unref'd (never keeps the process alive) and stopped by stop().
 */
export class TimeLimitSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly replies: ReplyControl,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for a sweep in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass (runs never overlap). Resolves with the number of sessions it timed out. */
  runOnce(): Promise<number> {
    this.running ??= this.sweep()
      .catch((err: unknown) => {
        this.ctx.log.warn({ err }, 'time-limit sweep failed');
        return 0;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async sweep(): Promise<number> {
    const { ctx } = this;
    await this.replies.endRepliesPastDeadline();
    let timedOut = 0;
    for (const due of await overdueSessions(ctx, ctx.now())) {
      const sessionId = due.session.id;
      try {
        if (this.replies.inFlightView(sessionId)) await this.replies.endReplyAtTimeLimit(sessionId);
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
