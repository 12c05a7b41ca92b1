/**
 * Store.submitSurvey on PostgreSQL: one call of tandem_submit_survey (migration 039), the ending and the answers in
 * one round trip instead of a transaction of four.
 */
import type { SurveySubmission, SurveySubmitResult } from '../contract/surveySubmit';
import type { Runner } from './connection';
import { changeFromAnswer, changeFromParams } from './repositories/sessions';

const CALL = 'SELECT tandem_submit_survey($1, $2, $3, $4, $5, $6, $7, $8, $9) AS answer';

export async function submitSurvey(db: Runner, w: SurveySubmission): Promise<SurveySubmitResult> {
  // The answers as JSON records, in their order (json_to_recordset keeps it; answer_order is the index).
  const answers = w.answers.map((a, i) => ({ survey_id: a.surveyId, item_id: a.itemId, item_kind: a.itemKind, value_num: a.valueNum, value_text: a.valueText, answer_order: i }));
  const row = await db.one<{ answer: string | null }>(CALL, [...changeFromParams(w.sessionId, w.from, w.events, w.patch, w.now), JSON.stringify(answers)]);
  return changeFromAnswer(row?.answer ?? null, w.events.length);
}
