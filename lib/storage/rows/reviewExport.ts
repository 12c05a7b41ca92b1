/** The reply_reviews columns the dataset export joins onto each message (both engines' exportSnapshot.ts). */
import type { ExportReview } from '../contract/store';

/** Select list (messages aliased m, reply_reviews aliased r) and join, the same SQL on both engines. */
export const REVIEW_EXPORT_COLUMNS =
  'r.mode AS review_mode, r.state AS review_state, r.origin AS review_origin, r.draft_text AS review_draft, r.edit_distance AS review_edit_distance, r.diff AS review_diff, r.wait_ms AS review_wait_ms';
export const REVIEW_EXPORT_JOIN = 'LEFT JOIN reply_reviews r ON r.reply_id = m.id';

export interface RawReviewExport {
  review_mode: string | null;
  review_state: string | null;
  review_origin: string | null;
  review_draft: string | null;
  review_edit_distance: number | null;
  review_diff: string | null;
  review_wait_ms: number | null;
}

export const toExportReview = (r: RawReviewExport): ExportReview | null =>
  r.review_mode === null
    ? null
    : {
        mode: r.review_mode,
        state: r.review_state ?? '',
        origin: r.review_origin,
        modelDraft: r.review_draft,
        editDistance: r.review_edit_distance,
        diff: r.review_diff,
        waitMs: r.review_wait_ms,
      };
