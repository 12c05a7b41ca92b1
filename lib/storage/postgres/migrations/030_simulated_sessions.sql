-- Sessions a simulator played (npm run simulate --agent-participants): flagged at join, only in a study whose status
-- is pilot (server/services/join.ts), so a participant of a live study cannot flag themselves. The export writes it as
-- sessions.csv's `simulated`; the analysis leaves such sessions out unless --include-simulated.
-- Twin of lib/storage/sqlite/migrations/030_simulated_sessions.sql.
ALTER TABLE sessions ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1));
