/** The `survey_answers` row as both engines return it (the same column types on each), its mapping and insert values. */
import type { SurveyAnswerRow } from '../contract/store';

export interface SurveyAnswerRaw {
  session_id: string;
  survey_id: string;
  item_id: string;
  item_kind: string;
  value_num: number | null;
  value_text: string | null;
  event_seq: number;
  created_at: number;
  answer_order: number;
}

export const toSurveyAnswer = (r: SurveyAnswerRaw): SurveyAnswerRow => ({
  sessionId: r.session_id,
  surveyId: r.survey_id,
  itemId: r.item_id,
  itemKind: r.item_kind,
  valueNum: r.value_num,
  valueText: r.value_text,
  eventSeq: r.event_seq,
  createdAt: r.created_at,
});

/**
 * Insert values in the column order session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq,
 * created_at, answer_order; `answerOrder` is the answer's place in its submit (migration 007).
 */
export const surveyAnswerValues = (a: SurveyAnswerRow, answerOrder: number) =>
  [a.sessionId, a.surveyId, a.itemId, a.itemKind, a.valueNum, a.valueText, a.eventSeq, a.createdAt, answerOrder] as const;
