/** Researcher-in-the-loop replies (reply_reviews) on both engines. */
import { both } from './engineSql';

/** The same on both engines; the parameter lists are rows/reviews.ts's insertParams, saveDraftParams, … */
export const REVIEW_SQL = {
  insert: both(`INSERT INTO reply_reviews (reply_id, session_id, study_id, reply_to, mode, state, created_at, deadline_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?, ?) ON CONFLICT (reply_id) DO NOTHING`),
  get: both('SELECT * FROM reply_reviews WHERE reply_id = ?'),
  saveDraft: both(`UPDATE reply_reviews SET draft_text = ?, draft_meta = ?, updated_at = ?
              WHERE reply_id = ? AND state IN ('waiting', 'claimed')`),
  claim: both(`UPDATE reply_reviews SET state = 'claimed', claimed_by = ?, claimed_at = ?, updated_at = ?
          WHERE reply_id = ? AND state IN ('waiting', 'claimed') AND (claimed_by IS NULL OR claimed_by = ?)`),
  release: both(`UPDATE reply_reviews SET state = 'waiting', claimed_by = NULL, claimed_at = NULL, updated_at = ?
            WHERE reply_id = ? AND state = 'claimed' AND claimed_by = ?`),
  resolve: both(`UPDATE reply_reviews SET state = ?, claimed_by = COALESCE(?, claimed_by), final_text = ?, origin = ?, edit_distance = ?,
              diff = ?, wait_ms = ?, resolved_at = ?, updated_at = ?
            WHERE reply_id = ? AND state IN ('waiting', 'claimed') AND (CAST(? AS TEXT) IS NULL OR claimed_by IS NULL OR claimed_by = ?)`),
  listOpenAll: both("SELECT * FROM reply_reviews WHERE state IN ('waiting', 'claimed') ORDER BY created_at, reply_id"),
  listOpenStudy: both("SELECT * FROM reply_reviews WHERE study_id = ? AND state IN ('waiting', 'claimed') ORDER BY created_at, reply_id"),
  listForSession: both('SELECT * FROM reply_reviews WHERE session_id = ? ORDER BY created_at, reply_id'),
} as const;

