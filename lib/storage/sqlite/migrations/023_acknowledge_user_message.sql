-- Twin of lib/storage/postgres/migrations/023_acknowledge_user_message.sql, which adds the PostgreSQL function
-- tandem_acknowledge_user_message (a chat message's checks and writes in one round trip). SQLite needs no schema
-- change: its Store.acknowledgeUserMessage runs the same statements in one synchronous transaction
-- (lib/storage/sqlite/userMessageAck.ts). Nothing to apply; the number is kept so both engines end at one version.
SELECT 1;
