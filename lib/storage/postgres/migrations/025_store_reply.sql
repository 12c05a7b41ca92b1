-- tandem_store_reply: a finished reply's outcome in one call (Store.storeAssistantReply, lib/storage/contract/assistantReplyWrite.ts),
-- the statements of the transaction it replaces in their order. The lease is deleted first: that waits for a
-- takeover holding the lease row, and as every statement of a VOLATILE function in READ COMMITTED takes a new
-- snapshot, the read after it sees the reply that takeover stored. A reply already stored is returned as it is.
-- tandem_append_event updates the session row first (its storage counter), which serialises the session's appends,
-- so seq is MAX + 1 without gaps. The message's columns come as one JSON object (json_populate_record), its
-- event_seq replaced by the event's; the message's text is added to the storage counter as PgMessages.insert does.
CREATE FUNCTION tandem_store_reply(p_session TEXT, p_reply_id TEXT, p_event_type TEXT, p_event_payload TEXT, p_now BIGINT, p_message TEXT)
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
  m.event_seq := tandem_append_event(p_session, p_event_type, p_event_payload, p_now, NULL);
  INSERT INTO messages VALUES (m.*);
  UPDATE sessions SET stored_bytes = stored_bytes + octet_length(m.text) WHERE id = p_session;
  DELETE FROM reply_progress WHERE reply_id = p_reply_id;
  RETURN json_build_object('outcome', 'stored', 'message', row_to_json(m))::text;
END $$;
