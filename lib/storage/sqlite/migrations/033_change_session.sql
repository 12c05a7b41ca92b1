-- Twin of lib/storage/postgres/migrations/033_change_session.sql, which adds the PostgreSQL function
-- tandem_change_session (a state change's events and row update in one round trip) and makes tandem_store_reply
-- update the session row once. SQLite needs no schema change: its SessionsRepo.change runs the same statements in
-- the caller's transaction (lib/storage/sqlite/repositories/sessions.ts). Nothing to apply; the number is kept so
-- both engines end at one version.
SELECT 1;
