-- A session's state change in one call (SessionsRepo.change, lib/storage/contract/sessions.ts): the events a step
-- change, a consent answer or an ending appends, and the row's new columns, as one round trip instead of one
-- tandem_append_event per event plus an UPDATE. The row is updated once, first: its storage counter (the events'
-- payload bytes) and the patch together. That UPDATE takes the lock tandem_append_event takes (NO KEY UPDATE: no
-- key column changes), so the seqs are MAX + 1, + 2, … without gaps. p_types / p_payloads / p_client_ts are the
-- events in order (payloads as JSON text); p_patch is a JSON object whose keys are the SessionPatch fields to set
-- (a key that is absent keeps its column); updated_at becomes p_now. Returns {"session": row, "firstSeq": n}
-- (firstSeq null without events), or NULL when there is no such session.
CREATE FUNCTION tandem_change_session(p_session TEXT, p_types TEXT[], p_payloads TEXT[], p_client_ts BIGINT[], p_patch TEXT, p_now BIGINT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  s sessions%ROWTYPE;
  patch jsonb := p_patch::jsonb;
  first_seq INTEGER;
BEGIN
  UPDATE sessions SET
      stored_bytes = stored_bytes + COALESCE((SELECT SUM(octet_length(p)) FROM unnest(p_payloads) AS p), 0),
      step = CASE WHEN patch ? 'step' THEN patch ->> 'step' ELSE step END,
      status = CASE WHEN patch ? 'status' THEN patch ->> 'status' ELSE status END,
      consent_version = CASE WHEN patch ? 'consentVersion' THEN patch ->> 'consentVersion' ELSE consent_version END,
      consented_at = CASE WHEN patch ? 'consentedAt' THEN (patch ->> 'consentedAt')::bigint ELSE consented_at END,
      submitted_at = CASE WHEN patch ? 'submittedAt' THEN (patch ->> 'submittedAt')::bigint ELSE submitted_at END,
      ended_at = CASE WHEN patch ? 'endedAt' THEN (patch ->> 'endedAt')::bigint ELSE ended_at END,
      updated_at = p_now
    WHERE id = p_session
    RETURNING * INTO s;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF COALESCE(array_length(p_types, 1), 0) > 0 THEN
    SELECT COALESCE(MAX(seq), 0) + 1 INTO first_seq FROM events WHERE session_id = p_session;
    INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
      SELECT p_session, first_seq + i - 1, p_types[i], p_payloads[i], p_now, p_client_ts[i]
        FROM generate_subscripts(p_types, 1) AS i ORDER BY i;
  END IF;
  RETURN json_build_object('session', row_to_json(s), 'firstSeq', first_seq)::text;
END $$;

-- tandem_store_reply (migration 025) updated the session row twice: tandem_append_event's counter, then the
-- message text's bytes. A second update of a row this transaction already changed also re-runs the foreign-key
-- check of sessions.study_id, so the reply's event is now appended here, with one update of the counter for both.
CREATE OR REPLACE FUNCTION tandem_store_reply(p_session TEXT, p_reply_id TEXT, p_event_type TEXT, p_event_payload TEXT, p_now BIGINT, p_message TEXT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  m messages%ROWTYPE;
BEGIN
  DELETE FROM reply_leases WHERE reply_id = p_reply_id;
  SELECT * INTO m FROM messages WHERE id = p_reply_id;
  IF FOUND THEN
    RETURN json_build_object('outcome', 'already', 'message', row_to_json(m))::text;
  END IF;
  m := json_populate_record(NULL::messages, p_message::json);
  UPDATE sessions SET stored_bytes = stored_bytes + octet_length(p_event_payload) + octet_length(m.text) WHERE id = p_session;
  SELECT COALESCE(MAX(seq), 0) + 1 INTO m.event_seq FROM events WHERE session_id = p_session;
  INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
    VALUES (p_session, m.event_seq, p_event_type, p_event_payload, p_now, NULL);
  INSERT INTO messages VALUES (m.*);
  DELETE FROM reply_progress WHERE reply_id = p_reply_id;
  RETURN json_build_object('outcome', 'stored', 'message', row_to_json(m))::text;
END $$;
