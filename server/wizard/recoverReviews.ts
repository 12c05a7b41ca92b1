import { OPEN_REVIEW_STATES, type ReviewRow } from '../../lib/storage/contract/reviews';
import { loadSession, type ServiceContext, type SessionContext } from '../services/serviceContext';
import type { WizardDesk } from './desk';

/** What recovery needs of the chat service: to start waiting again for a reply whose reply.started is stored. */
export interface ReplyResumer {
  /** False when it did not (another live node holds the reply's lease, or the session has a reply in flight here). */
  resumeReply(s: SessionContext, replyId: string, replyTo: string): Promise<boolean>;
}

/**
 * Start-up recovery of reviewed replies (run after services/recovery.ts, which leaves open reviews alone):
 * every review still waiting or claimed when the process died is resumed, i.e. the session's reply is in flight
 * again (the participant sees the typing indicator, the researcher the queue), with its stored draft (a draft cut
 * mid-stream is drafted again) and its original deadline (past: the fallback goes out at once). A reply already
 * stored is not sent again: finishReview checks the message and the review's state in one transaction.
 * A review of a session that is no longer active is closed without a reply. A review whose reply's lease another
 * live node holds is left to that node (a cluster node starting while others run). Returns how many it resumed.
 */
export async function recoverReviews(ctx: ServiceContext, desk: WizardDesk, chat: ReplyResumer): Promise<number> {
  let resumed = 0;
  for (const review of await ctx.store.reviews.listOpen()) if (await resumeOpenReview(ctx, desk, chat, review)) resumed++;
  return resumed;
}

/**
 * One open review whose node stopped (this node's previous run, or a dead node's, found by the periodic takeover):
 * resumed on this node (true), closed without a reply when its session ended meanwhile, or left to the live node
 * that holds its reply's lease.
 */
export async function resumeOpenReview(ctx: ServiceContext, desk: WizardDesk, chat: ReplyResumer, review: ReviewRow): Promise<boolean> {
  if (!OPEN_REVIEW_STATES.includes(review.state)) return false;
  let s: SessionContext | undefined;
  try {
    s = await loadSession(ctx, review.sessionId);
  } catch (err) {
    ctx.log.warn({ err, replyId: review.replyId }, 'a reviewed reply refers to a session or study that is gone; closing it');
  }
  if (s && s.session.status === 'active' && s.session.step === 'workspace') return chat.resumeReply(s, review.replyId, review.replyTo);
  await desk.closeUnanswerable(review.replyId);
  return false;
}
