-- Researcher-in-the-loop replies (issue 17): one row per assistant reply of a `review` or `wizard`
-- condition, from the moment the participant starts waiting until the reply is sent. While the row is
-- open (waiting / claimed) the reply has a reply.started event and no message: start-up recovery leaves
-- it waiting (server/wizard/recoverReviews.ts) instead of storing it as interrupted. The message, its
-- reply.finished event and the resolution of this row are written in one transaction.
-- claimed_by is the researcher (admin actor): it lives only here and in the audit log, never in a dataset.
CREATE TABLE reply_reviews (
  reply_id       TEXT PRIMARY KEY,                 -- = the assistant message id the reply will get
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  study_id       TEXT NOT NULL,
  reply_to       TEXT NOT NULL,                    -- the participant message answered
  mode           TEXT NOT NULL CHECK (mode IN ('review', 'wizard')),
  state          TEXT NOT NULL CHECK (state IN ('waiting', 'claimed', 'sent', 'fallback', 'discarded')),
  draft_text     TEXT,                             -- the model's draft once it ended (null while it streams)
  draft_meta     TEXT,                             -- JSON: the draft's provider, model, usage, timings
  claimed_by     TEXT,                             -- researcher holding the claim (admin actor)
  claimed_at     INTEGER,
  final_text     TEXT,                             -- what the participant got
  origin         TEXT CHECK (origin IN ('model', 'model_edited', 'wizard', 'fallback')),
  edit_distance  INTEGER,                          -- Levenshtein (characters) from draft to final text
  diff           TEXT,                             -- unified diff from draft to final text
  wait_ms        INTEGER,                          -- how long the participant waited for the reply
  created_at     INTEGER NOT NULL,                 -- server ms UTC when the participant started waiting
  deadline_at    INTEGER NOT NULL,                 -- when the fallback is sent if nobody answered
  resolved_at    INTEGER,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX reply_reviews_open ON reply_reviews(study_id, created_at) WHERE state IN ('waiting', 'claimed');
CREATE INDEX reply_reviews_session ON reply_reviews(session_id);
