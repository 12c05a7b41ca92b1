/** The `reply_progress` row (a streaming reply's crash checkpoint) as both engines return it, and its mapping. */
import type { ReplyProgressRow } from '../contract/store';

export interface ReplyProgressRaw {
  reply_id: string;
  session_id: string;
  text: string;
  provider: string | null;
  first_delta_at: number;
  updated_at: number;
}

export const toReplyProgress = (r: ReplyProgressRaw): ReplyProgressRow => ({
  replyId: r.reply_id,
  sessionId: r.session_id,
  text: r.text,
  provider: r.provider,
  firstDeltaAt: r.first_delta_at,
  updatedAt: r.updated_at,
});
