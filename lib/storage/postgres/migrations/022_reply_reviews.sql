-- PostgreSQL twin of lib/storage/sqlite/migrations/022_reply_reviews.sql (researcher-in-the-loop replies).
CREATE TABLE reply_reviews (
  reply_id       TEXT COLLATE "C" PRIMARY KEY,
  session_id     TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  study_id       TEXT COLLATE "C" NOT NULL,
  reply_to       TEXT COLLATE "C" NOT NULL,
  mode           TEXT COLLATE "C" NOT NULL CHECK (mode IN ('review', 'wizard')),
  state          TEXT COLLATE "C" NOT NULL CHECK (state IN ('waiting', 'claimed', 'sent', 'fallback', 'discarded')),
  draft_text     TEXT COLLATE "C",
  draft_meta     TEXT COLLATE "C",
  claimed_by     TEXT COLLATE "C",
  claimed_at     BIGINT,
  final_text     TEXT COLLATE "C",
  origin         TEXT COLLATE "C" CHECK (origin IN ('model', 'model_edited', 'wizard', 'fallback')),
  edit_distance  BIGINT,
  diff           TEXT COLLATE "C",
  wait_ms        BIGINT,
  created_at     BIGINT NOT NULL,
  deadline_at    BIGINT NOT NULL,
  resolved_at    BIGINT,
  updated_at     BIGINT NOT NULL
);
CREATE INDEX reply_reviews_open ON reply_reviews(study_id, created_at) WHERE state IN ('waiting', 'claimed');
CREATE INDEX reply_reviews_session ON reply_reviews(session_id);
