-- A participant's chat message in one round trip (Store.acknowledgeUserMessage, lib/storage/contract/userMessageAck.ts):
-- the checks and writes of the transaction chat:send ran before (BEGIN, session lock and check, event, message,
-- reply.started event, COMMIT: six round trips holding a pooled connection), as one function call.
-- Returns one JSON text: {"outcome": "stored"|"duplicate"|"not_found"|"refused", "reason", "session", "message",
-- "storedBytes"} with session/message as row_to_json of their rows.
--
-- The session row is locked first (NO KEY UPDATE, the lock tandem_append_event takes), so appends to the session
-- serialise and seq is MAX + 1 without gaps; every statement after the lock is a new snapshot (READ COMMITTED,
-- VOLATILE), so the resend check sees a racing resend that committed while this call waited for the lock. A
-- message inserted with the same client id without that lock still loses to the unique (session_id, client_id):
-- the INSERT raises unique_violation and the whole call, its event included, rolls back (the caller reads the
-- winner's row). p_step is the step the session must be at; p_time_limit_ms its study's limit after consent.
-- The reply the message starts takes the session's lease (reply_leases, migration 021) before anything is
-- written: the primary key decides, so of two nodes only one starts a reply; the other answers 'busy'.
CREATE FUNCTION tandem_acknowledge_user_message(
  p_session TEXT, p_message_id TEXT, p_client_id TEXT, p_text TEXT, p_tokens INTEGER, p_now BIGINT, p_client_ts BIGINT,
  p_message_type TEXT, p_message_payload TEXT, p_following_type TEXT, p_following_payload TEXT,
  p_step TEXT, p_time_limit_ms BIGINT, p_max_user_messages INTEGER, p_budget_bytes BIGINT, p_added_bytes BIGINT,
  p_reply_id TEXT, p_owner_node TEXT, p_owner_incarnation TEXT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  s sessions%ROWTYPE;
  m messages%ROWTYPE;
  used BIGINT;
  refusal TEXT;
  next_seq INTEGER;
BEGIN
  SELECT * INTO s FROM sessions WHERE id = p_session FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'not_found')::text;
  END IF;
  SELECT * INTO m FROM messages WHERE session_id = p_session AND client_id = p_client_id;
  IF FOUND THEN
    RETURN json_build_object('outcome', 'duplicate', 'session', row_to_json(s), 'message', row_to_json(m))::text;
  END IF;

  used := s.stored_bytes + COALESCE((SELECT octet_length(d.fields) FROM artifact_drafts d WHERE d.session_id = p_session), 0);
  IF s.status <> 'active' THEN
    refusal := 'ended';
  ELSIF s.consented_at IS NOT NULL AND p_now >= s.consented_at + p_time_limit_ms AND s.step IN ('instructions', 'workspace') THEN
    refusal := 'overdue';
  ELSIF s.step <> p_step THEN
    refusal := 'wrong_step';
  ELSIF (SELECT COUNT(*) FROM messages WHERE session_id = p_session AND role = 'user') >= p_max_user_messages THEN
    refusal := 'limit_reached';
  ELSIF p_added_bytes > 0 AND used + p_added_bytes > p_budget_bytes THEN
    refusal := 'storage_full';
  END IF;
  IF refusal IS NOT NULL THEN
    RETURN json_build_object('outcome', 'refused', 'reason', refusal, 'session', row_to_json(s), 'storedBytes', used)::text;
  END IF;
  INSERT INTO reply_leases (session_id, reply_id, reply_to, owner_node, owner_incarnation, started_at, heartbeat_at)
    VALUES (p_session, p_reply_id, p_message_id, p_owner_node, p_owner_incarnation, p_now, p_now)
    ON CONFLICT (session_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN json_build_object('outcome', 'refused', 'reason', 'busy', 'session', row_to_json(s), 'storedBytes', used)::text;
  END IF;

  SELECT COALESCE(MAX(seq), 0) + 1 INTO next_seq FROM events WHERE session_id = p_session;
  INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
    VALUES (p_session, next_seq, p_message_type, p_message_payload, p_now, p_client_ts);
  INSERT INTO messages (id, session_id, event_seq, role, text, client_id, reply_to, status, tokens, interrupted, created_at)
    VALUES (p_message_id, p_session, next_seq, 'user', p_text, p_client_id, NULL, 'complete', p_tokens, 0, p_now)
    RETURNING * INTO m;
  INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts)
    VALUES (p_session, next_seq + 1, p_following_type, p_following_payload, p_now, NULL);
  -- The storage budget's counter, as tandem_append_event and the message insert keep it.
  UPDATE sessions SET stored_bytes = stored_bytes + octet_length(p_message_payload) + octet_length(p_text) + octet_length(p_following_payload)
    WHERE id = p_session;
  RETURN json_build_object('outcome', 'stored', 'session', row_to_json(s), 'message', row_to_json(m))::text;
END $$;
