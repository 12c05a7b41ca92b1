-- Resuming a session from another browser (issue 15): a short resume code, stored only as a keyed hash,
-- and one session per platform user *and* per-visit id (Prolific SESSION_ID, MTurk assignmentId), so a
-- visit that brings its own per-visit id starts its own session instead of taking over (or locking out)
-- the session that another visit started under the same platform user id.
ALTER TABLE identities ADD COLUMN resume_code_hash TEXT;
DROP INDEX identities_platform_user;
CREATE UNIQUE INDEX identities_platform_user ON identities(study_id, platform, platform_user_id, COALESCE(platform_session_id, ''))
  WHERE platform_user_id IS NOT NULL;
