-- LLM-judge samples (issue 4). One row per (session, artifact version, rubric, requested model,
-- sample index): a rerun with the same settings replaces the row; every reply also stays in the
-- judge's reply cache file. score is the raw 1–5 integer, NULL when unparsable or failed (never 0).
CREATE TABLE judgements (
  id                 INTEGER PRIMARY KEY,
  session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  artifact_version   INTEGER NOT NULL,
  rubric_id          TEXT NOT NULL,
  rubric_version     TEXT NOT NULL,
  rubric_hash        TEXT NOT NULL,
  template_hash      TEXT NOT NULL,
  parser_version     TEXT NOT NULL,
  sample             INTEGER NOT NULL CHECK (sample >= 0),
  requested_model    TEXT NOT NULL,
  reported_model     TEXT,
  system_fingerprint TEXT,
  provider           TEXT NOT NULL,
  provider_url       TEXT,
  params             TEXT NOT NULL,  -- JSON {temperature, maxTokens}
  seed               INTEGER NOT NULL,
  score              INTEGER CHECK (score IS NULL OR score BETWEEN 1 AND 5),
  parse_ok           INTEGER NOT NULL CHECK (parse_ok IN (0, 1)),
  failure_reason     TEXT,           -- parse failure reason or "transport: ..."; NULL when parsed
  raw_reply          TEXT,
  reask_reply        TEXT,
  reasked            INTEGER NOT NULL CHECK (reasked IN (0, 1)),
  usage              TEXT,           -- JSON {promptTokens, completionTokens, totalTokens}
  latency_ms         INTEGER NOT NULL,
  cached             INTEGER NOT NULL CHECK (cached IN (0, 1)),
  cache_key          TEXT NOT NULL,
  transport_error    TEXT,           -- JSON {kind, status?, message}
  created_at         INTEGER NOT NULL,
  UNIQUE (session_id, artifact_version, rubric_id, requested_model, sample)
);
CREATE INDEX judgements_session ON judgements(session_id, artifact_version);

-- Quality Q per session: median of the parsed samples of the latest judged artifact version.
CREATE TABLE judge_quality (
  session_id       TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  artifact_version INTEGER NOT NULL,
  rubric_id        TEXT NOT NULL,
  rubric_hash      TEXT NOT NULL,
  requested_model  TEXT NOT NULL,
  quality          REAL,             -- NULL when no sample parsed
  samples          INTEGER NOT NULL,
  parsed           INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
