-- The place of each answer within its survey submit (0, 1, … in the survey's item order), so that a session's
-- answers are listed by a key of their own on both engines rather than by rowid (here) or ctid (PostgreSQL).
-- Rows stored before this migration keep the order they were inserted in, which was the order answered.
ALTER TABLE survey_answers ADD COLUMN answer_order INTEGER NOT NULL DEFAULT 0;
UPDATE survey_answers SET answer_order = (
  SELECT COUNT(*) FROM survey_answers b
   WHERE b.session_id = survey_answers.session_id AND b.event_seq = survey_answers.event_seq AND b.rowid < survey_answers.rowid);
