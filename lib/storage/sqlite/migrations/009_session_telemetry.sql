-- Integrity telemetry (issue 15): one row per session that sent telemetry:batch, rewritten per batch in the
-- transaction that appends the batch's telemetry.batch event. summary is JSON (common/telemetrySummary.ts):
-- paste counts and lengths, typed-character counts and inter-key interval statistics, away periods, and
-- the user-agent class. Never text, key identities or the raw user agent. batches/bytes bound a session.
CREATE TABLE session_telemetry (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  summary    TEXT NOT NULL,
  batches    INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
