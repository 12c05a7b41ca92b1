-- Arrival order in the lobby (issue 23): joined_at is milliseconds, and two people can join one lobby in the same
-- millisecond. arrival_seq numbers a lobby's entries 1, 2, … in the order their joins committed (the join holds the
-- lobby's lock, lib/storage/contract/groups.ts), so "first come, first seated" is exact; matching orders by it.
-- Entries from before this migration are numbered by (joined_at, session_id), the order matching used until now.
-- (028's note that a withdrawn member's document updates keep their bytes no longer holds: a withdrawal replaces them
-- by one content-free update, lib/storage/groupWithdrawal.ts.)
-- Twin of lib/storage/postgres/migrations/029_lobby_arrival.sql (which also lets group_events.id take a given id, for db:copy).
ALTER TABLE lobby_entries ADD COLUMN arrival_seq INTEGER NOT NULL DEFAULT 0;
UPDATE lobby_entries SET arrival_seq = (
  SELECT COUNT(*) FROM lobby_entries e
   WHERE e.study_id = lobby_entries.study_id AND e.condition_id = lobby_entries.condition_id AND e.task_id = lobby_entries.task_id
     AND (e.joined_at < lobby_entries.joined_at OR (e.joined_at = lobby_entries.joined_at AND e.session_id <= lobby_entries.session_id))
);
CREATE UNIQUE INDEX lobby_entries_arrival ON lobby_entries(study_id, condition_id, task_id, arrival_seq);
