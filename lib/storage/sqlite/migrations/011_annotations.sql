-- Dialogue annotations (issue 4): one row per utterance (user or assistant message) of a session,
-- turn = 0-based index of the message in the session. friction is NULL (and grounding '[]') when
-- the annotator could not label the utterance; failure_reason then says why.
CREATE TABLE annotations (
  session_id      TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn            INTEGER NOT NULL CHECK (turn >= 0),
  message_id      TEXT,
  speaker         TEXT NOT NULL CHECK (speaker IN ('user', 'agent')),
  friction        TEXT,
  grounding       TEXT NOT NULL,     -- JSON array of grounding acts
  guide_hash      TEXT NOT NULL,
  requested_model TEXT NOT NULL,
  reported_model  TEXT,
  provider        TEXT NOT NULL,
  provider_url    TEXT,
  method          TEXT NOT NULL CHECK (method IN ('batch', 'batch_retry', 'single', 'failed')),
  failure_reason  TEXT,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (session_id, turn)
);
