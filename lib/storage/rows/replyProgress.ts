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

/** A `reply_progress_parts` row: text a later checkpoint appended, from `text_from` on. */
export interface ReplyProgressPartRaw {
  text_from: number;
  text: string;
  updated_at: number;
}

/**
 * The checkpoint with its whole text: the row's text, then each part that starts where the text so far ends. A part
 * after a gap (which the writer never leaves: a part is written only after everything before it was) is not joined.
 */
export function toReplyProgress(r: ReplyProgressRaw, parts: readonly ReplyProgressPartRaw[] = []): ReplyProgressRow {
  let text = r.text;
  let updatedAt = r.updated_at;
  for (const part of parts) {
    if (part.text_from !== text.length) break;
    text += part.text;
    updatedAt = Math.max(updatedAt, part.updated_at);
  }
  return { replyId: r.reply_id, sessionId: r.session_id, text, provider: r.provider, firstDeltaAt: r.first_delta_at, updatedAt };
}
