import type { ReplyResumer, ServiceContext } from '../services/serviceContext';
import type { WizardDesk } from './desk';

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
  for (const review of await ctx.store.reviews.listOpen()) if (await desk.resumeOpenReview(review, chat)) resumed++;
  return resumed;
}
