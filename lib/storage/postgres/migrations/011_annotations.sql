-- PostgreSQL twin of lib/storage/sqlite/migrations/011_annotations.sql (dialogue annotations, one row per utterance).
CREATE TABLE annotations (
  session_id      TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn            INTEGER NOT NULL CHECK (turn >= 0),
  message_id      TEXT COLLATE "C",
  speaker         TEXT COLLATE "C" NOT NULL CHECK (speaker IN ('user', 'agent')),
  friction        TEXT COLLATE "C",
  grounding       TEXT COLLATE "C" NOT NULL,
  guide_hash      TEXT COLLATE "C" NOT NULL,
  requested_model TEXT COLLATE "C" NOT NULL,
  reported_model  TEXT COLLATE "C",
  provider        TEXT COLLATE "C" NOT NULL,
  provider_url    TEXT COLLATE "C",
  method          TEXT COLLATE "C" NOT NULL CHECK (method IN ('batch', 'batch_retry', 'single', 'failed')),
  failure_reason  TEXT COLLATE "C",
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (session_id, turn)
);
