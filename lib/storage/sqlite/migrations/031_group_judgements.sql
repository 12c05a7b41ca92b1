-- A group's shared document judged once, as the group's artifact (design: Q of the group's artifact). Same columns
-- as judgements / judge_quality with group_id for session_id and doc_version (the last group_doc_updates seq the
-- judged text was built from) for artifact_version. A withdrawal that rewrites the document deletes these rows.
CREATE TABLE group_judgements (
  id                 INTEGER PRIMARY KEY,
  group_id           TEXT NOT NULL REFERENCES study_groups(id) ON DELETE CASCADE,
  doc_version        INTEGER NOT NULL,
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
  images             TEXT,           -- as judgements.images (migration 012)
  created_at         INTEGER NOT NULL,
  UNIQUE (group_id, doc_version, rubric_id, requested_model, sample)
);
CREATE INDEX group_judgements_group ON group_judgements(group_id, doc_version);

-- Quality Q per group: median of the parsed samples of the latest judged document version.
CREATE TABLE group_judge_quality (
  group_id         TEXT PRIMARY KEY REFERENCES study_groups(id) ON DELETE CASCADE,
  doc_version      INTEGER NOT NULL,
  rubric_id        TEXT NOT NULL,
  rubric_hash      TEXT NOT NULL,
  requested_model  TEXT NOT NULL,
  quality          REAL,             -- NULL when no sample parsed
  samples          INTEGER NOT NULL,
  parsed           INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
