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

/** SQL with `?` placeholders (SQLite); PostgreSQL numbers them with `numbered`. Parameter lists below match. */
export const REVIEW_SQL = {
  insert: `INSERT INTO reply_reviews (reply_id, session_id, study_id, reply_to, mode, state, created_at, deadline_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?, ?) ON CONFLICT (reply_id) DO NOTHING`,
  get: 'SELECT * FROM reply_reviews WHERE reply_id = ?',
  saveDraft: `UPDATE reply_reviews SET draft_text = ?, draft_meta = ?, updated_at = ?
              WHERE reply_id = ? AND state IN ('waiting', 'claimed')`,
  claim: `UPDATE reply_reviews SET state = 'claimed', claimed_by = ?, claimed_at = ?, updated_at = ?
          WHERE reply_id = ? AND state IN ('waiting', 'claimed') AND (claimed_by IS NULL OR claimed_by = ?)`,
  release: `UPDATE reply_reviews SET state = 'waiting', claimed_by = NULL, claimed_at = NULL, updated_at = ?
            WHERE reply_id = ? AND state = 'claimed' AND claimed_by = ?`,
  resolve: `UPDATE reply_reviews SET state = ?, claimed_by = COALESCE(?, claimed_by), final_text = ?, origin = ?, edit_distance = ?,
              diff = ?, wait_ms = ?, resolved_at = ?, updated_at = ?
            WHERE reply_id = ? AND state IN ('waiting', 'claimed') AND (CAST(? AS TEXT) IS NULL OR claimed_by IS NULL OR claimed_by = ?)`,
  listOpenAll: "SELECT * FROM reply_reviews WHERE state IN ('waiting', 'claimed') ORDER BY created_at, reply_id",
  listOpenStudy: "SELECT * FROM reply_reviews WHERE study_id = ? AND state IN ('waiting', 'claimed') ORDER BY created_at, reply_id",
  listForSession: 'SELECT * FROM reply_reviews WHERE session_id = ? ORDER BY created_at, reply_id',
} as const;

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

/** `?` → `$1, $2, …` for PostgreSQL. */
export const numbered = (sql: string): string => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};
