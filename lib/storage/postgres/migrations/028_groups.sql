-- PostgreSQL twin of lib/storage/sqlite/migrations/028_groups.sql (group sessions, issue 23).
-- its consent, survey and completion; these tables hold what the group shares.

-- One row per formed group. next_seq / next_doc_seq hand out the room's group_seq and the shared document's update
-- numbers without gaps (the row is the lock every append to the group takes first).
CREATE TABLE study_groups (
  id            TEXT COLLATE "C" PRIMARY KEY,
  study_id      TEXT COLLATE "C" NOT NULL REFERENCES studies(id),
  condition_id  TEXT COLLATE "C" NOT NULL,
  task_id       TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL CHECK (status IN ('active', 'ended')),
  end_reason    TEXT COLLATE "C",
  size_at_start INTEGER NOT NULL,
  agents        TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  formed_at BIGINT NOT NULL,
  ended_at BIGINT,
  next_seq      INTEGER NOT NULL DEFAULT 0,
  next_doc_seq  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX study_groups_study ON study_groups(study_id, condition_id, formed_at);

-- The waiting room: one row per session that entered it (a person with several tabs has one session, so one row).
-- outcome NULL = still waiting; grouped / released (lobby timeout) / left. The wait is outcome_at - joined_at.
CREATE TABLE lobby_entries (
  session_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  study_id      TEXT COLLATE "C" NOT NULL,
  condition_id  TEXT COLLATE "C" NOT NULL,
  task_id       TEXT COLLATE "C" NOT NULL,
  quota_value   TEXT COLLATE "C",
  joined_at BIGINT NOT NULL,
  deadline_at BIGINT NOT NULL,
  outcome       TEXT COLLATE "C" CHECK (outcome IN ('grouped', 'released', 'left')),
  outcome_at BIGINT,
  group_id      TEXT COLLATE "C" REFERENCES study_groups(id)
);
CREATE INDEX lobby_entries_waiting ON lobby_entries(study_id, condition_id, task_id, joined_at) WHERE outcome IS NULL;
CREATE INDEX lobby_entries_deadline ON lobby_entries(deadline_at) WHERE outcome IS NULL;

-- The seats of a group. The primary key means one seat is filled once; the unique session_id that one person is
-- in at most one group. An agent seat (kind agent) has no session.
CREATE TABLE group_members (
  group_id      TEXT COLLATE "C" NOT NULL REFERENCES study_groups(id) ON DELETE CASCADE,
  seat          INTEGER NOT NULL,
  kind          TEXT COLLATE "C" NOT NULL CHECK (kind IN ('participant', 'agent')),
  session_id    TEXT COLLATE "C" UNIQUE REFERENCES sessions(id) ON DELETE SET NULL,
  display_name  TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL CHECK (status IN ('present', 'away', 'dropped', 'replaced', 'left', 'withdrawn')),
  joined_at BIGINT NOT NULL,
  away_since BIGINT,
  left_at BIGINT,
  PRIMARY KEY (group_id, seat)
);

-- The group's own trajectory: lobby and membership events (lobby_joined, grouped, disconnected, reconnected,
-- dropped, replaced, left, agent_failed, ended). group_id is NULL for a lobby event of a person never grouped.
CREATE TABLE group_events (
  id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  study_id      TEXT COLLATE "C" NOT NULL,
  group_id      TEXT COLLATE "C" REFERENCES study_groups(id) ON DELETE CASCADE,
  session_id    TEXT COLLATE "C",
  type          TEXT COLLATE "C" NOT NULL,
  server_ts BIGINT NOT NULL,
  payload       TEXT COLLATE "C" NOT NULL DEFAULT '{}'
);
CREATE INDEX group_events_group ON group_events(group_id, id);
CREATE INDEX group_events_study ON group_events(study_id, id);

-- The room's chat: group_seq 1, 2, … per group. A person's message has their session (deleted with it on
-- withdrawal) and a client_id (a resend is stored once).
CREATE TABLE group_messages (
  id            TEXT COLLATE "C" PRIMARY KEY,
  group_id      TEXT COLLATE "C" NOT NULL REFERENCES study_groups(id) ON DELETE CASCADE,
  group_seq     INTEGER NOT NULL,
  sender_kind   TEXT COLLATE "C" NOT NULL CHECK (sender_kind IN ('participant', 'agent', 'researcher', 'system')),
  session_id    TEXT COLLATE "C" REFERENCES sessions(id) ON DELETE CASCADE,
  sender_name   TEXT COLLATE "C" NOT NULL,
  client_id     TEXT COLLATE "C",
  content       TEXT COLLATE "C" NOT NULL,
  tokens        INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  UNIQUE (group_id, group_seq),
  UNIQUE (session_id, client_id)
);

-- The shared artifact: every Yjs update (base64) of the group's document, in order. Replaying them rebuilds the
-- document on any node. A withdrawn member's updates keep their bytes (the document's later edits depend on them)
-- but lose their session.
CREATE TABLE group_doc_updates (
  group_id      TEXT COLLATE "C" NOT NULL REFERENCES study_groups(id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  session_id    TEXT COLLATE "C" REFERENCES sessions(id) ON DELETE SET NULL,
  field_id      TEXT COLLATE "C" NOT NULL,
  doc_update    TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (group_id, seq)
);
