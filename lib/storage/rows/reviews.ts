/** The reply_reviews row as both engines return it, and its mapping to ReviewRow (one copy for SQLite and PostgreSQL). */
import type { ReplyOrigin } from '../../../common/assistantMode';
import type { DraftMeta, NewReview, ReviewMode, ReviewResolution, ReviewRow, ReviewState } from '../contract/reviews';

export interface RawReview {
  reply_id: string;
  session_id: string;
  study_id: string;
  reply_to: string;
  mode: string;
  state: string;
  draft_text: string | null;
  draft_meta: string | null;
  claimed_by: string | null;
  claimed_at: number | null;
  final_text: string | null;
  origin: string | null;
  edit_distance: number | null;
  diff: string | null;
  wait_ms: number | null;
  created_at: number;
  deadline_at: number;
  resolved_at: number | null;
  updated_at: number;
}

export const toReviewRow = (r: RawReview): ReviewRow => ({
  replyId: r.reply_id,
  sessionId: r.session_id,
  studyId: r.study_id,
  replyTo: r.reply_to,
  mode: r.mode as ReviewMode,
  state: r.state as ReviewState,
  draftText: r.draft_text,
  draftMeta: r.draft_meta === null ? null : (JSON.parse(r.draft_meta) as DraftMeta),
  claimedBy: r.claimed_by,
  claimedAt: r.claimed_at,
  finalText: r.final_text,
  origin: r.origin as ReplyOrigin | null,
  editDistance: r.edit_distance,
  diff: r.diff,
  waitMs: r.wait_ms,
  createdAt: r.created_at,
  deadlineAt: r.deadline_at,
  resolvedAt: r.resolved_at,
  updatedAt: r.updated_at,
});

export const insertParams = (r: NewReview) => [r.replyId, r.sessionId, r.studyId, r.replyTo, r.mode, r.createdAt, r.deadlineAt, r.createdAt];
export const saveDraftParams = (replyId: string, text: string, meta: DraftMeta, now: number) => [text, JSON.stringify(meta), now, replyId];
export const claimParams = (replyId: string, actor: string, now: number) => [actor, now, now, replyId, actor];
export const releaseParams = (replyId: string, actor: string, now: number) => [now, replyId, actor];
export const resolveParams = (replyId: string, x: ReviewResolution) => [
  x.state,
  x.actor,
  x.finalText,
  x.origin,
  x.editDistance,
  x.diff,
  x.waitMs,
  x.at,
  x.at,
  replyId,
  x.actor,
  x.actor,
];
