-- A state change as a compare-and-set (SessionsRepo.changeFrom, lib/storage/contract/sessions.ts): the row changes
-- only while it is at p_from_step and p_from_status, which the UPDATE itself checks. Under READ COMMITTED a change of
-- the row by a concurrent transaction makes the UPDATE wait for it and re-check the condition on the row it then
-- finds, so of two racing changes from one step exactly one applies. A consent made this way needs no transaction
-- that locks the row first (BEGIN, SELECT … FOR NO KEY UPDATE, COMMIT: three round trips), and the balance_counts
-- rows its trigger updates (migration 035) stay locked for this statement only, not while the server gets round to
-- COMMIT: with the rows held across those round trips, concurrent consents of one condition queued behind each other.
--
-- tandem_change_session_from is tandem_change_session (migration 033) with the two conditions (NULL: none). It
-- returns {"session": row, "firstSeq": n, "changed": true}, or {"session": row as it is, "changed": false} when the
-- row is at another step or status, or NULL when there is no such session. tandem_change_session now calls it, so the
-- body is written once and a node of the previous version keeps working during a rolling upgrade.
CREATE FUNCTION tandem_change_session_from(p_session TEXT, p_from_step TEXT, p_from_status TEXT, p_types TEXT[], p_payloads TEXT[],
  p_client_ts BIGINT[], p_patch TEXT, p_now BIGINT)
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
    WHERE id = p_session AND (p_from_step IS NULL OR step = p_from_step) AND (p_from_status IS NULL OR status = p_from_status)
    RETURNING * INTO s;
  IF NOT FOUND THEN
    SELECT * INTO s FROM sessions WHERE id = p_session;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    RETURN json_build_object('session', row_to_json(s), 'changed', false)::text;
  END IF;
  IF COALESCE(array_length(p_types, 1), 0) > 0 THEN
    SELECT COALESCE(MAX(seq), 0) + 1 INTO first_seq FROM events WHERE session_id = p_session;
    INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
      SELECT p_session, first_seq + i - 1, p_types[i], p_payloads[i], p_now, p_client_ts[i]
        FROM generate_subscripts(p_types, 1) AS i ORDER BY i;
  END IF;
  RETURN json_build_object('session', row_to_json(s), 'firstSeq', first_seq, 'changed', true)::text;
END $$;

CREATE OR REPLACE FUNCTION tandem_change_session(p_session TEXT, p_types TEXT[], p_payloads TEXT[], p_client_ts BIGINT[], p_patch TEXT, p_now BIGINT)
RETURNS TEXT LANGUAGE sql AS $$
  SELECT tandem_change_session_from(p_session, NULL, NULL, p_types, p_payloads, p_client_ts, p_patch, p_now)
$$;
