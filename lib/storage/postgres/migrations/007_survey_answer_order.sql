-- The place of each answer within its survey submit (0, 1, … in the survey's item order), so that a session's
-- answers are listed by a key of their own on both engines rather than by ctid (here) or rowid (SQLite).
-- Rows stored before this migration keep the order they were inserted in (one multi-row INSERT per submit).
ALTER TABLE survey_answers ADD COLUMN answer_order INTEGER NOT NULL DEFAULT 0;
UPDATE survey_answers a SET answer_order = r.n
  FROM (SELECT ctid AS c, row_number() OVER (PARTITION BY session_id, event_seq ORDER BY ctid) - 1 AS n FROM survey_answers) r
 WHERE a.ctid = r.c;
