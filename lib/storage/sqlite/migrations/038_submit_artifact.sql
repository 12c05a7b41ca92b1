-- Twin of lib/storage/postgres/migrations/038_submit_artifact.sql, which adds the PostgreSQL function
-- tandem_submit_artifact (a submission in one round trip). SQLite needs no schema change: its Store.submitArtifact
-- runs the same checks and writes in one synchronous transaction (lib/storage/sqlite/artifactSubmit.ts). Nothing to
-- apply; the number is kept so both engines end at one version.
SELECT 1;
