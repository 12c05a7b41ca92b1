-- Twin of lib/storage/postgres/migrations/036_change_session_from.sql, which adds the PostgreSQL function
-- tandem_change_session_from (a state change made only while the row is at a given step and status). SQLite needs no
-- schema change: its SessionsRepo.changeFrom reads and changes the row in one transaction
-- (lib/storage/sqlite/repositories/sessions.ts). Nothing to apply; the number is kept so both engines end at one version.
SELECT 1;
