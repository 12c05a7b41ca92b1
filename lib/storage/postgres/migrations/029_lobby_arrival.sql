-- PostgreSQL twin of lib/storage/sqlite/migrations/029_lobby_arrival.sql (arrival order in the lobby, issue 23).
ALTER TABLE lobby_entries ADD COLUMN arrival_seq INTEGER NOT NULL DEFAULT 0;
UPDATE lobby_entries SET arrival_seq = (
  SELECT COUNT(*) FROM lobby_entries e
   WHERE e.study_id = lobby_entries.study_id AND e.condition_id = lobby_entries.condition_id AND e.task_id = lobby_entries.task_id
     AND (e.joined_at < lobby_entries.joined_at OR (e.joined_at = lobby_entries.joined_at AND e.session_id <= lobby_entries.session_id))
);
CREATE UNIQUE INDEX lobby_entries_arrival ON lobby_entries(study_id, condition_id, task_id, arrival_seq);
