-- Cluster coordination (issue 13): state that several nodes sharing one database must agree on.

-- One row per reply streaming right now, anywhere in the cluster. The primary key on session_id is the
-- rule "one active reply per session": the row is inserted in the transaction that stores reply.started
-- (send, retry) and deleted in the one that stores the reply's outcome. The owner refreshes heartbeat_at
-- every few seconds; a lease whose heartbeat is older than the lease expiry belongs to a dead node, and
-- recovery stores its reply as interrupted. stop_requested carries a Stop that reached another node.
CREATE TABLE reply_leases (
  session_id        TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  reply_id          TEXT NOT NULL UNIQUE,
  reply_to          TEXT NOT NULL,
  owner_node        TEXT NOT NULL,
  owner_incarnation TEXT NOT NULL,
  started_at        INTEGER NOT NULL,
  heartbeat_at      INTEGER NOT NULL,
  stop_requested    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX reply_leases_owner ON reply_leases(owner_node, owner_incarnation);
CREATE INDEX reply_leases_heartbeat ON reply_leases(heartbeat_at);

-- Dashboard jobs (judge runs, analyses, exports): claimed by the node that started them, visible to every
-- node, at most one running per kind and study. A running job whose heartbeat stopped (its node died) is
-- marked failed ('abandoned') by whichever node sweeps first.
CREATE TABLE admin_jobs (
  id                TEXT PRIMARY KEY,
  kind              TEXT NOT NULL,
  study_id          TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
  actor             TEXT NOT NULL,
  owner_node        TEXT NOT NULL,
  owner_incarnation TEXT NOT NULL,
  done              INTEGER NOT NULL DEFAULT 0,
  total             INTEGER NOT NULL DEFAULT 0,
  message           TEXT NOT NULL DEFAULT '',
  result            TEXT,
  created_at        INTEGER NOT NULL,
  heartbeat_at      INTEGER NOT NULL,
  finished_at       INTEGER
);
CREATE UNIQUE INDEX admin_jobs_one_running ON admin_jobs(kind, study_id) WHERE state = 'running';
CREATE INDEX admin_jobs_latest ON admin_jobs(study_id, kind, created_at);
