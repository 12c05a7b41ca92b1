-- An export is downloaded once, on whichever node the request reaches (server/admin/exportJobs.ts): the first
-- download sets taken_at, and a second one, on this node or another, finds it set and is refused.
-- Twin of lib/storage/postgres/migrations/024_export_download.sql.
ALTER TABLE admin_jobs ADD COLUMN taken_at INTEGER;
