-- PostgreSQL twin of lib/storage/sqlite/migrations/005_resume_codes.sql (resume codes; one session per platform
-- user and per-visit id).
ALTER TABLE identities ADD COLUMN resume_code_hash TEXT COLLATE "C";
DROP INDEX identities_platform_user;
CREATE UNIQUE INDEX identities_platform_user ON identities(study_id, platform, platform_user_id, COALESCE(platform_session_id, ''))
  WHERE platform_user_id IS NOT NULL;
