-- Studies known to this installation. The definition itself lives in studies/<id>.yaml; we keep the
-- hash of what was loaded so exports can tell which version ran. Status is managed by the admin side.
CREATE TABLE studies (
  id              TEXT PRIMARY KEY,
  title           TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('draft', 'pilot', 'live', 'closed')),
  definition_hash TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);

-- One participant session. Science data: no platform ids or URL parameters here (see identities).
CREATE TABLE sessions (
  id            TEXT PRIMARY KEY,
  study_id      TEXT NOT NULL REFERENCES studies(id),
  task_id       TEXT NOT NULL,
  condition_id  TEXT NOT NULL,
  step          TEXT NOT NULL CHECK (step IN ('consent', 'instructions', 'workspace', 'survey', 'complete')),
  status        TEXT NOT NULL CHECK (status IN ('active', 'completed', 'declined', 'timed_out')),
  is_pilot      INTEGER NOT NULL DEFAULT 0 CHECK (is_pilot IN (0, 1)),
  consent_version TEXT,
  created_at    INTEGER NOT NULL,
  consented_at  INTEGER,
  submitted_at  INTEGER,
  ended_at      INTEGER,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX sessions_study ON sessions(study_id, condition_id, is_pilot);

-- The only place platform identities and raw URL parameters live.
CREATE TABLE identities (
  session_id          TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  study_id            TEXT NOT NULL,
  platform            TEXT NOT NULL,  -- prolific | mturk | label | anonymous
  platform_user_id    TEXT,           -- PROLIFIC_PID / workerId / participant_label
  platform_study_id   TEXT,           -- STUDY_ID / hitId
  platform_session_id TEXT,           -- SESSION_ID / assignmentId
  url_params          TEXT NOT NULL,  -- JSON object, as received
  created_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX identities_platform_user ON identities(study_id, platform, platform_user_id)
  WHERE platform_user_id IS NOT NULL;

-- Participant tokens, stored as SHA-256 hashes. A token binds to exactly one session.
CREATE TABLE participant_tokens (
  token_hash  TEXT PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL
);
CREATE INDEX participant_tokens_session ON participant_tokens(session_id);

-- The trajectory: append-only source of truth. seq counts from 1 within a session.
CREATE TABLE events (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  type        TEXT NOT NULL,
  payload     TEXT NOT NULL,         -- JSON
  server_ts   INTEGER NOT NULL,      -- ms since epoch, UTC
  client_ts   INTEGER,               -- ms since epoch, browser clock (null for server-originated events)
  UNIQUE (session_id, seq)
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Chat messages (derived from message events, written in the same transaction).
CREATE TABLE messages (
  id            TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  event_seq     INTEGER NOT NULL,              -- seq of the event that stored it
  role          TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  text          TEXT NOT NULL,
  client_id     TEXT,                          -- participant messages: client-generated id
  reply_to      TEXT REFERENCES messages(id),  -- assistant messages: the user message answered
  status        TEXT NOT NULL CHECK (status IN ('complete', 'stopped', 'interrupted', 'error')),
  tokens        INTEGER NOT NULL,              -- o200k_base count of text
  provider      TEXT,
  provider_url  TEXT,
  model         TEXT,                          -- exact model the provider reported
  requested_model TEXT,
  params        TEXT,                          -- JSON {temperature, max_tokens, ...}
  usage         TEXT,                          -- JSON provider-reported usage, or null
  ttft_ms       INTEGER,
  duration_ms   INTEGER,
  finish_reason TEXT,
  interrupted   INTEGER NOT NULL DEFAULT 0 CHECK (interrupted IN (0, 1)),
  attempts      INTEGER,
  error         TEXT,                          -- JSON {kind, message, status?, retryable}
  created_at    INTEGER NOT NULL,
  UNIQUE (session_id, client_id)
);
CREATE INDEX messages_session ON messages(session_id, event_seq);

-- Autosaved artifact draft: one row per session, overwritten (each save is also an event).
CREATE TABLE artifact_drafts (
  session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  fields      TEXT NOT NULL,  -- JSON {fieldId: value}
  event_seq   INTEGER NOT NULL,
  saved_at    INTEGER NOT NULL
);

-- Submitted artifact versions (1, 2, ...).
CREATE TABLE artifacts (
  session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  version      INTEGER NOT NULL,
  fields       TEXT NOT NULL,  -- JSON {fieldId: value}; image fields hold upload ids
  event_seq    INTEGER NOT NULL,
  submitted_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, version)
);

-- Uploaded files (images for image fields). Bytes live on disk under <dataDir>/uploads/<session>/<id>.
CREATE TABLE uploads (
  id            TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  field_id      TEXT NOT NULL,
  file_name     TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  bytes         INTEGER NOT NULL,
  sha256        TEXT NOT NULL,
  storage_path  TEXT NOT NULL,  -- relative to dataDir
  event_seq     INTEGER NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE INDEX uploads_session ON uploads(session_id);

-- Post-task survey answers, one row per item.
CREATE TABLE survey_answers (
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  survey_id   TEXT NOT NULL,
  item_id     TEXT NOT NULL,
  item_kind   TEXT NOT NULL,
  value_num   INTEGER,
  value_text  TEXT,
  event_seq   INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (session_id, item_id)
);
