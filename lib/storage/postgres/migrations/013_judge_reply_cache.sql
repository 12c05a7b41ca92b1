-- The judge/annotator reply cache as tables of the study database (study-mode runs on a PostgreSQL store;
-- on SQLite the cache is the file <dataDir>/.judge-cache.sqlite, so the SQLite twin of this migration is empty).
-- Not science data: a cache of completed model replies, keyed by a hash of everything that determines them.
CREATE TABLE reply_cache (
  key          TEXT COLLATE "C" PRIMARY KEY,
  purpose      TEXT COLLATE "C" NOT NULL,
  request_json TEXT COLLATE "C" NOT NULL,
  result_json  TEXT COLLATE "C" NOT NULL,
  created_at   BIGINT NOT NULL
);
-- Which sessions' text each cached reply was made from, so a withdrawal can purge them.
CREATE TABLE reply_cache_sessions (
  key        TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (key, session_id)
);
CREATE INDEX reply_cache_sessions_session ON reply_cache_sessions(session_id);
