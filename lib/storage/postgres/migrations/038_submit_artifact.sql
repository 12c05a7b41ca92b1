-- tandem_submit_artifact: a submission in one call (Store.submitArtifact, lib/storage/contract/artifactSubmit.ts), the
-- checks and writes of the transaction it replaces (BEGIN, session lock and check, draft read, the pending draft's
-- event and mark, versions read, the state change, the version's row, COMMIT) in their order. Returns one JSON text:
-- {"outcome": "submitted"|"not_found"|"refused", "reason", "version", "session" (row_to_json)}.
--
-- The session row is locked first (NO KEY UPDATE, the lock tandem_append_event takes), so every check is made on the
-- row as it is when the write happens; the state change is tandem_change_session_from's (migration 036). p_fields is
-- the fields' JSON text (JSON.stringify); the payloads are built as the same text SQLite stores: the pending draft's
-- {"fields":…,"version":N,"savedAt":T} from the draft row's own text, the submission's {"version":N,"fields":…}.
-- p_after_*: the events recorded after the submission's (the step change), as tandem_change_session_from takes them.
CREATE FUNCTION tandem_submit_artifact(
  p_session TEXT, p_fields TEXT, p_client_ts BIGINT, p_now BIGINT, p_time_limit_ms BIGINT,
  p_after_types TEXT[], p_after_payloads TEXT[], p_after_client_ts BIGINT[])
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  s sessions%ROWTYPE;
  d artifact_drafts%ROWTYPE;
  refusal TEXT;
  draft_seq INTEGER;
  next_version INTEGER;
  changed jsonb;
BEGIN
  SELECT * INTO s FROM sessions WHERE id = p_session FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'not_found')::text;
  END IF;
  IF s.status <> 'active' THEN
    refusal := 'ended';
  ELSIF s.consented_at IS NOT NULL AND p_now >= s.consented_at + p_time_limit_ms AND s.step IN ('instructions', 'workspace') THEN
    refusal := 'overdue';
  ELSIF s.step <> 'workspace' THEN
    refusal := 'wrong_step';
  END IF;
  IF refusal IS NOT NULL THEN
    RETURN json_build_object('outcome', 'refused', 'reason', refusal, 'session', row_to_json(s))::text;
  END IF;

  SELECT * INTO d FROM artifact_drafts WHERE session_id = p_session;
  IF FOUND AND d.version <> d.recorded_version THEN
    draft_seq := tandem_append_event(p_session, 'artifact.draft_saved',
      '{"fields":' || d.fields || ',"version":' || d.version || ',"savedAt":' || d.saved_at || '}', p_now, NULL);
    UPDATE artifact_drafts SET event_seq = draft_seq, recorded_version = d.version, recorded_at = p_now WHERE session_id = p_session;
  END IF;
  SELECT COALESCE(MAX(version), 0) + 1 INTO next_version FROM artifacts WHERE session_id = p_session;
  changed := tandem_change_session_from(p_session, 'workspace', 'active',
    ARRAY['artifact.submitted'] || COALESCE(p_after_types, '{}'),
    ARRAY['{"version":' || next_version || ',"fields":' || p_fields || '}'] || COALESCE(p_after_payloads, '{}'),
    ARRAY[p_client_ts] || COALESCE(p_after_client_ts, '{}'),
    json_build_object('submittedAt', p_now, 'step', 'survey')::text, p_now)::jsonb;
  -- Checked above on the locked row: the change cannot miss.
  IF NOT (changed ->> 'changed')::boolean THEN
    RAISE EXCEPTION 'session % changed during its submission', p_session;
  END IF;
  INSERT INTO artifacts (session_id, version, fields, event_seq, submitted_at)
    VALUES (p_session, next_version, p_fields, (changed ->> 'firstSeq')::integer, p_now);
  RETURN json_build_object('outcome', 'submitted', 'version', next_version, 'session', changed -> 'session')::text;
END $$;
