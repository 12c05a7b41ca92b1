-- Crash checkpoints of assistant replies while they stream. One small row per reply in flight,
-- overwritten at most every ~500 ms (or every few hundred characters) and deleted in the same
-- transaction that stores the finished reply. After a crash (SIGKILL, power loss of the process),
-- start-up recovery stores each unfinished reply as interrupted with the text checkpointed here.
-- Not science data and not part of the trajectory: the finished reply (message + reply.finished event)
-- is the record; this table is normally empty.
CREATE TABLE reply_progress (
  reply_id       TEXT PRIMARY KEY,                 -- = the assistant message id the reply will get
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  text           TEXT NOT NULL,                    -- everything streamed up to this checkpoint
  provider       TEXT,                             -- provider name answering (for the recovered record)
  first_delta_at INTEGER NOT NULL,                 -- server ms UTC of the first streamed text (→ ttft)
  updated_at     INTEGER NOT NULL                  -- server ms UTC of this checkpoint
);
CREATE INDEX reply_progress_session ON reply_progress(session_id);

-- The time-limit sweep looks for active, consented sessions past their deadline every second.
CREATE INDEX sessions_active_consented ON sessions(consented_at) WHERE status = 'active';
