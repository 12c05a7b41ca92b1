-- PostgreSQL twin of lib/storage/sqlite/migrations/034_reply_progress_parts.sql (a checkpoint's later text in parts).
CREATE TABLE reply_progress_parts (
  reply_id   TEXT COLLATE "C" NOT NULL REFERENCES reply_progress(reply_id) ON DELETE CASCADE,
  text_from  INTEGER NOT NULL,
  text       TEXT COLLATE "C" NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (reply_id, text_from)
);
