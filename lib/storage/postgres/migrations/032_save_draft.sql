-- tandem_save_draft: an autosave in one call (Store.saveDraft, lib/storage/contract/draftSave.ts), the checks and
-- writes of the transaction it replaces (BEGIN, session lock and check, draft read, budget read, event, draft
-- upsert, COMMIT: seven round trips) in their order. Returns one JSON text: {"outcome": "saved"|"unchanged"|
-- "not_found"|"refused", "reason", "session" (row_to_json), "savedAt", "version", "recorded", "storedVersion",
-- "storedBytes", "change"}.
--
-- The session row is locked first (NO KEY UPDATE, the lock tandem_append_event takes), so every check is made on the
-- row as it is when the write happens. p_fields is the fields' JSON text as the client's values serialise
-- (JSON.stringify); the event's payload is built as the same text SQLite stores ({"fields":…,"version":N}), so both
-- engines count the same bytes against the budget. Equal fields (jsonb equality: key order aside) write nothing.
CREATE FUNCTION tandem_save_draft(
  p_session TEXT, p_fields TEXT, p_base_version INTEGER, p_now BIGINT, p_client_ts BIGINT,
  p_step TEXT, p_time_limit_ms BIGINT, p_budget_bytes BIGINT, p_event_interval_ms BIGINT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  s sessions%ROWTYPE;
  d artifact_drafts%ROWTYPE;
  stored_version INTEGER := 0;
  new_version INTEGER;
  record BOOLEAN;
  payload TEXT;
  change BIGINT;
  used BIGINT;
  refusal TEXT;
  seq INTEGER;
BEGIN
  SELECT * INTO s FROM sessions WHERE id = p_session FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'not_found')::text;
  END IF;
  SELECT * INTO d FROM artifact_drafts WHERE session_id = p_session;
  IF FOUND THEN
    stored_version := d.version;
  END IF;
  new_version := stored_version + 1;
  record := d.session_id IS NULL OR p_now - d.recorded_at >= p_event_interval_ms;
  payload := '{"fields":' || p_fields || ',"version":' || new_version || '}';
  change := octet_length(p_fields) - COALESCE(octet_length(d.fields), 0) + CASE WHEN record THEN octet_length(payload) ELSE 0 END;
  used := s.stored_bytes + COALESCE(octet_length(d.fields), 0);

  IF s.status <> 'active' THEN
    refusal := 'ended';
  ELSIF s.consented_at IS NOT NULL AND p_now >= s.consented_at + p_time_limit_ms AND s.step IN ('instructions', 'workspace') THEN
    refusal := 'overdue';
  ELSIF s.step <> p_step THEN
    refusal := 'wrong_step';
  ELSIF d.session_id IS NOT NULL AND d.fields::jsonb = p_fields::jsonb THEN
    RETURN json_build_object('outcome', 'unchanged', 'savedAt', d.saved_at, 'version', stored_version)::text;
  ELSIF p_base_version IS NOT NULL AND p_base_version <> stored_version THEN
    refusal := 'conflict';
  ELSIF change > 0 AND used + change > p_budget_bytes THEN
    refusal := 'storage_full';
  END IF;
  IF refusal IS NOT NULL THEN
    RETURN json_build_object('outcome', 'refused', 'reason', refusal, 'session', row_to_json(s), 'storedVersion', stored_version,
      'storedBytes', used, 'change', change)::text;
  END IF;

  IF record THEN
    seq := tandem_append_event(p_session, 'artifact.draft_saved', payload, p_now, p_client_ts);
    INSERT INTO artifact_drafts (session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at)
      VALUES (p_session, p_fields, seq, p_now, new_version, new_version, p_now)
      ON CONFLICT (session_id) DO UPDATE SET fields = excluded.fields, event_seq = excluded.event_seq, saved_at = excluded.saved_at,
        version = excluded.version, recorded_version = excluded.recorded_version, recorded_at = excluded.recorded_at;
  ELSE
    UPDATE artifact_drafts SET fields = p_fields, saved_at = p_now, version = new_version WHERE session_id = p_session;
  END IF;
  RETURN json_build_object('outcome', 'saved', 'savedAt', p_now, 'version', new_version, 'recorded', record)::text;
END $$;
