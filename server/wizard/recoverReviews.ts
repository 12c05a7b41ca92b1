import { OPEN_REVIEW_STATES } from '../db/reviewTypes';
import { loadSession, type ServiceContext, type SessionContext } from '../services/context';
import type { WizardDesk } from './desk';

/** What recovery needs of the chat service: to start waiting again for a reply whose reply.started is stored. */
export interface ReplyResumer {
  resumeReply(s: SessionContext, replyId: string, replyTo: string): void;
}

/**
 * Start-up recovery of reviewed replies (run after services/recovery.ts, which leaves open reviews alone):
 * every review still waiting or claimed when the process died is resumed, i.e. the session's reply is in flight
 * again (the participant sees the typing indicator, the researcher the queue), with its stored draft (a draft cut
 * mid-stream is drafted again) and its original deadline (past: the fallback goes out at once). A reply already
 * stored is not sent again: finishReview checks the message and the review's state in one transaction.
 * A review of a session that is no longer active is closed without a reply. Returns how many it resumed.
 */
export async function recoverReviews(ctx: ServiceContext, desk: WizardDesk, chat: ReplyResumer): Promise<number> {
  let resumed = 0;
  for (const review of await ctx.store.reviews.listOpen()) {
    if (!OPEN_REVIEW_STATES.includes(review.state)) continue;
    let s: SessionContext | undefined;
    try {
      s = await loadSession(ctx, review.sessionId);
    } catch (err) {
      ctx.log.warn({ err, replyId: review.replyId }, 'a reviewed reply refers to a session or study that is gone; closing it');
    }
    if (s && s.session.status === 'active' && s.session.step === 'workspace') {
      chat.resumeReply(s, review.replyId, review.replyTo);
      resumed++;
    } else {
      await desk.closeUnanswerable(review.replyId);
    }
  }
  return resumed;
}
