import type { MessageRow } from '../../lib/storage';
import { isStoreUnavailable } from '../../lib/storage';
import type { ServiceContext } from '../services/serviceContext';
import { takeOverDeadReplies } from '../services/recovery';
import { messageView, participantErrorMessage } from '../services/sessionState';
import type { Coordination } from './coordination';
import { PeriodicJob } from './periodic';

/** Name of the cluster-wide lock the periodic takeover runs under (one node at a time). */
export const REPLY_TAKEOVER_LOCK = 'reply-takeover';

/**
 * Periodic takeover of dead nodes' replies (services/recovery.ts takeOverDeadReplies), on one node at a time
 * (store.locks). A reply cut by a node's death is stored interrupted within about lease expiry + this period,
 * and its session's sockets get chat:error with Retry.
 * After the store was unreachable every lease looks stale (no node could heartbeat), so once a run failed
 * that way the takeover waits until the store answers again and then two more heartbeat periods: live owners
 * refresh their leases before anything is taken over.
 */
export class ReplyTakeoverSweep extends PeriodicJob<number> {
  private pausedUntil = 0;
  private storeLost = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly coordination: Coordination,
    /** Whether this process streams the reply right now (never taken over from itself). */
    private readonly runningHere: (replyId: string) => boolean,
    /** Resumes here a dead node's reply that waits for a researcher (true when it did). */
    private readonly resumeReview: (replyId: string) => Promise<boolean> = async () => false,
  ) {
    super('reply takeover', coordination.takeoverMs, 0, ctx.log);
  }

  /** One run (runOnce); resolves with how many replies it stored as interrupted (0 when another node holds the lock). */
  protected async run(): Promise<number> {
    const { ctx, coordination } = this;
    try {
      if (this.storeLost) {
        await ctx.store.schemaVersion(); // rejects while the store is still unreachable
        this.storeLost = false;
        this.pausedUntil = ctx.now() + 2 * coordination.heartbeatMs;
      }
      if (ctx.now() < this.pausedUntil) return 0;
      const run = await ctx.store.locks.tryRun(REPLY_TAKEOVER_LOCK, () =>
        takeOverDeadReplies(ctx.store, ctx.config, coordination, ctx.now(), (m) => this.tell(m), this.runningHere, this.resumeReview),
      );
      if (run.ran && run.value > 0) ctx.log.warn({ stored: run.value, node: coordination.owner.node }, 'stored replies of a dead node as interrupted');
      return run.ran ? run.value : 0;
    } catch (err) {
      if (isStoreUnavailable(err)) this.storeLost = true;
      throw err;
    }
  }

  /** The participant sees the reply end as failed, with Retry (as after a restart's recovery). */
  private tell(m: MessageRow): void {
    this.ctx.push(m.sessionId, 'chat:error', { replyId: m.id, message: participantErrorMessage('stream'), retryable: true, partial: messageView(m) });
  }
}
