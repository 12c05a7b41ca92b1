-- Twin of lib/storage/postgres/migrations/025_store_reply.sql, which adds the PostgreSQL function tandem_store_reply
-- (a finished reply's outcome in one round trip). SQLite needs no schema change: its Store.storeAssistantReply runs
-- the same statements in one synchronous transaction (lib/storage/sqlite/assistantReplyWrite.ts). Nothing to apply;
-- the number is kept so both engines end at one version.
SELECT 1;
