-- PostgreSQL twin of lib/storage/sqlite/migrations/002_reply_progress.sql (crash checkpoints of streaming replies).
CREATE TABLE reply_progress (
  reply_id       TEXT COLLATE "C" PRIMARY KEY,
  session_id     TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  text           TEXT COLLATE "C" NOT NULL,
  provider       TEXT COLLATE "C",
  first_delta_at BIGINT NOT NULL,
  updated_at     BIGINT NOT NULL
);
CREATE INDEX reply_progress_session ON reply_progress(session_id);

CREATE INDEX sessions_active_consented ON sessions(consented_at) WHERE status = 'active';
