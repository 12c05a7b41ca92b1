-- PostgreSQL twin of lib/storage/sqlite/migrations/009_session_telemetry.sql (integrity telemetry per session).
CREATE TABLE session_telemetry (
  session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  summary    TEXT COLLATE "C" NOT NULL,
  batches    BIGINT NOT NULL,
  bytes      BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
