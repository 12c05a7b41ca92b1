-- tandem_submit_survey: a survey's submission in one call (Store.submitSurvey, lib/storage/contract/surveySubmit.ts):
-- the session's ending as tandem_change_session_from makes it (a compare-and-set on the step and status it was read
-- at; its first eight parameters are that function's) and, when it is made, the answers with the seq of its first
-- event, in place of a transaction of four round trips (BEGIN, the change, the answers' INSERT, COMMIT). Answers
-- tandem_change_session_from's JSON text (NULL: no such session). p_answers: a JSON array of {"survey_id", "item_id",
-- "item_kind", "value_num", "value_text", "answer_order"}.
CREATE FUNCTION tandem_submit_survey(p_session TEXT, p_from_step TEXT, p_from_status TEXT, p_types TEXT[], p_payloads TEXT[],
  p_client_ts BIGINT[], p_patch TEXT, p_now BIGINT, p_answers TEXT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  answer TEXT;
  changed jsonb;
BEGIN
  answer := tandem_change_session_from(p_session, p_from_step, p_from_status, p_types, p_payloads, p_client_ts, p_patch, p_now);
  IF answer IS NULL THEN
    RETURN NULL;
  END IF;
  changed := answer::jsonb;
  IF (changed ->> 'changed')::boolean THEN
    INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at, answer_order)
      SELECT p_session, a.survey_id, a.item_id, a.item_kind, a.value_num, a.value_text, (changed ->> 'firstSeq')::integer, p_now, a.answer_order
        FROM json_to_recordset(p_answers::json) AS a(survey_id TEXT, item_id TEXT, item_kind TEXT, value_num INTEGER, value_text TEXT, answer_order INTEGER)
       ORDER BY a.answer_order;
  END IF;
  RETURN answer;
END $$;
