-- Researcher access (issue 5). One researcher password, stored as a scrypt hash ("scrypt$N$r$p$salt$hash").
CREATE TABLE admin_credentials (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  password_hash TEXT NOT NULL,
  source        TEXT NOT NULL CHECK (source IN ('env', 'generated')),
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);

-- Researcher login sessions. The cookie holds a random token; only its SHA-256 is stored.
CREATE TABLE admin_sessions (
  token_hash   TEXT PRIMARY KEY,
  csrf_token   TEXT NOT NULL,
  actor        TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX admin_sessions_expiry ON admin_sessions(expires_at);

-- Every researcher action: who, what, when, details (JSON, never personal data).
CREATE TABLE audit_log (
  id       INTEGER PRIMARY KEY,
  at       INTEGER NOT NULL,
  actor    TEXT NOT NULL,
  action   TEXT NOT NULL,
  study_id TEXT,
  details  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_study ON audit_log(study_id, at);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

-- Withdrawn participants: a keyed HMAC of (study, platform id) — no personal data — so later exports,
-- analyses and joins can recognise them.
CREATE TABLE withdrawals (
  study_id         TEXT NOT NULL,
  tombstone        TEXT NOT NULL,
  withdrawn_at     INTEGER NOT NULL,
  deleted_sessions INTEGER NOT NULL,
  actor            TEXT NOT NULL,
  PRIMARY KEY (study_id, tombstone)
);

-- The live monitor asks for a study's active and recently ended sessions several times a second.
CREATE INDEX admin_sessions_by_status ON sessions(study_id, status, ended_at);
