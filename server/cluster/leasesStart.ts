import type { ServiceContext } from '../services/serviceContext';
import type { AbortCause } from '../services/replyOutcome';
import type { Coordination } from './coordination';
import { ReplyLeaseKeeper } from './leases';
import { ReplyTakeoverSweep } from './leasesTakeover';

/** What the chat service lets coordination see of the replies it streams. */
export interface StreamingReplies {
  /** Ids of the replies this node streams right now. */
  ids(): string[];
  abort(replyId: string, cause: AbortCause): void;
  /** Resumes on this node a dead node's reply that waits for a researcher (true when it did). */
  resumeReview(replyId: string): Promise<boolean>;
}

/**
 * Starts the chat service's side of cluster coordination: the heartbeat of this node's reply leases (a Stop
 * from another node aborts the reply as a participant's; a lease taken over ends the reply here) and the
 * periodic takeover of dead nodes' replies. The caller stops both at shutdown (takeover first, heartbeat last).
 */
export function startReplyCoordination(ctx: ServiceContext, coordination: Coordination, replies: StreamingReplies): { leases: ReplyLeaseKeeper; takeover: ReplyTakeoverSweep } {
  const leases = new ReplyLeaseKeeper(
    ctx.store.interactive,
    coordination,
    {
      held: () => replies.ids(),
      stopRequested: (replyId) => replies.abort(replyId, 'participant'),
      lost: (replyId) => {
        ctx.log.warn({ replyId, node: coordination.owner.node }, 'reply lease taken over by another node; ending the reply here');
        replies.abort(replyId, 'shutdown');
      },
    },
    ctx.now,
    ctx.log,
  );
  leases.start();
  const takeover = new ReplyTakeoverSweep(ctx, coordination, (replyId) => replies.ids().includes(replyId), (replyId) => replies.resumeReview(replyId));
  takeover.start();
  return { leases, takeover };
}
