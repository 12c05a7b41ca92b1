-- PostgreSQL twin of lib/storage/sqlite/migrations/006_draft_versions_storage.sql (draft versions, coalesced draft
-- events, the per-session storage budget's byte counter).
ALTER TABLE artifact_drafts ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE artifact_drafts ADD COLUMN recorded_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE artifact_drafts ADD COLUMN recorded_at BIGINT NOT NULL DEFAULT 0;
UPDATE artifact_drafts SET recorded_at = saved_at;

ALTER TABLE sessions ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE sessions SET stored_bytes =
    COALESCE((SELECT SUM(octet_length(e.payload)) FROM events e WHERE e.session_id = sessions.id), 0)
  + COALESCE((SELECT SUM(octet_length(m.text)) FROM messages m WHERE m.session_id = sessions.id), 0);

-- The append now also counts the payload's bytes. The UPDATE takes the same row lock as the PERFORM … FOR NO
-- KEY UPDATE it replaces (stored_bytes is no key column), so appends to one session still serialise.
CREATE OR REPLACE FUNCTION tandem_append_event(p_session TEXT, p_type TEXT, p_payload TEXT, p_server_ts BIGINT, p_client_ts BIGINT)
RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  next_seq INTEGER;
BEGIN
  UPDATE sessions SET stored_bytes = stored_bytes + octet_length(p_payload) WHERE id = p_session;
  SELECT COALESCE(MAX(seq), 0) + 1 INTO next_seq FROM events WHERE session_id = p_session;
  INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
    VALUES (p_session, next_seq, p_type, p_payload, p_server_ts, p_client_ts);
  RETURN next_seq;
END $$;
