-- PostgreSQL twin of lib/storage/sqlite/migrations/021_coordination.sql (reply leases, dashboard jobs).
CREATE TABLE reply_leases (
  session_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  reply_id          TEXT COLLATE "C" NOT NULL UNIQUE,
  reply_to          TEXT COLLATE "C" NOT NULL,
  owner_node        TEXT COLLATE "C" NOT NULL,
  owner_incarnation TEXT COLLATE "C" NOT NULL,
  started_at        BIGINT NOT NULL,
  heartbeat_at      BIGINT NOT NULL,
  stop_requested    BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX reply_leases_owner ON reply_leases(owner_node, owner_incarnation);
CREATE INDEX reply_leases_heartbeat ON reply_leases(heartbeat_at);

CREATE TABLE admin_jobs (
  id                TEXT COLLATE "C" PRIMARY KEY,
  kind              TEXT COLLATE "C" NOT NULL,
  study_id          TEXT COLLATE "C" NOT NULL,
  state             TEXT COLLATE "C" NOT NULL CHECK (state IN ('running', 'done', 'failed')),
  actor             TEXT COLLATE "C" NOT NULL,
  owner_node        TEXT COLLATE "C" NOT NULL,
  owner_incarnation TEXT COLLATE "C" NOT NULL,
  done              INTEGER NOT NULL DEFAULT 0,
  total             INTEGER NOT NULL DEFAULT 0,
  message           TEXT COLLATE "C" NOT NULL DEFAULT '',
  result            TEXT COLLATE "C",
  created_at        BIGINT NOT NULL,
  heartbeat_at      BIGINT NOT NULL,
  finished_at       BIGINT
);
CREATE UNIQUE INDEX admin_jobs_one_running ON admin_jobs(kind, study_id) WHERE state = 'running';
CREATE INDEX admin_jobs_latest ON admin_jobs(study_id, kind, created_at);
