-- Twin of lib/storage/postgres/migrations/032_save_draft.sql, which adds the PostgreSQL function tandem_save_draft
-- (an autosave in one round trip). SQLite needs no schema change: its Store.saveDraft runs the same checks and
-- writes in one synchronous transaction (lib/storage/sqlite/draftSave.ts). Nothing to apply; the number is kept so
-- both engines end at one version.
SELECT 1;
