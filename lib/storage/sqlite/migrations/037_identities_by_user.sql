-- Finding a participant's sessions by their platform id alone (WithdrawalsRepo.findSessionIds: a withdrawal, and the
-- sessions page's search) named the study and the id but not the platform, so it could use only the study part of
-- identities_platform_user and read every identity of the study: 16–18 ms at 100,000 identities on SQLite, on the
-- event loop, for each search. Indexed by study and id it is one seek (0.1 ms). Twin:
-- postgres/migrations/037_identities_by_user.sql.
CREATE INDEX identities_study_user ON identities(study_id, platform_user_id) WHERE platform_user_id IS NOT NULL;
