-- Coalesced artifact drafts, draft versions and the per-session storage budget (issues 15 and 16).
-- artifact_drafts keeps the latest draft in place; `version` counts its saves (1, 2, …) so a save based on
-- an older version (another tab) is refused as stale; `recorded_version`/`recorded_at` say which version
-- the trajectory last recorded as an artifact.draft_saved event, and when (events are at most one per
-- interval; the latest draft is recorded before the submission). Existing drafts were all recorded.
ALTER TABLE artifact_drafts ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE artifact_drafts ADD COLUMN recorded_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE artifact_drafts ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
UPDATE artifact_drafts SET recorded_at = saved_at;

-- UTF-8 bytes of the session's event payloads and message texts, kept by events.append and the message
-- inserts (the per-session storage budget reads it instead of summing the session's rows).
ALTER TABLE sessions ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET stored_bytes =
    COALESCE((SELECT SUM(length(CAST(e.payload AS BLOB))) FROM events e WHERE e.session_id = sessions.id), 0)
  + COALESCE((SELECT SUM(length(CAST(m.text AS BLOB))) FROM messages m WHERE m.session_id = sessions.id), 0);
