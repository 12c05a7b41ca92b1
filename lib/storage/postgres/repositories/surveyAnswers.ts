import type { SurveyAnswerRow, SurveyAnswersRepo } from '../../contract/store';
import { surveyAnswerValues, toSurveyAnswer, type SurveyAnswerRaw } from '../../rows/surveyAnswers';
import type { Runner } from '../connection';
import { valueTuples } from '../valueTuples';

export class PgSurveyAnswers implements SurveyAnswersRepo {
  constructor(private readonly db: Runner) {}

  async insert(answers: readonly SurveyAnswerRow[]): Promise<void> {
    if (answers.length === 0) return;
    // One multi-row INSERT: its rows go to the heap in VALUES order, which listForSession's ctid order relies on.
    const tuples = valueTuples(answers.map(surveyAnswerValues));
    await this.db.run(`INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at) VALUES ${tuples.sql}`, tuples.values);
  }

  /**
   * In the order answered. SQLite orders by rowid; PostgreSQL has none, so: event_seq (one survey submit is one
   * event), then ctid — the physical position, which for this insert-only table follows insertion order.
   */
  async listForSession(sessionId: string): Promise<SurveyAnswerRow[]> {
    const rows = await this.db.rows<SurveyAnswerRaw>('SELECT * FROM survey_answers WHERE session_id = $1 ORDER BY event_seq, ctid', [sessionId]);
    return rows.map(toSurveyAnswer);
  }

  async hasAnswers(sessionId: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 FROM survey_answers WHERE session_id = $1 LIMIT 1', [sessionId])) !== undefined;
  }
}
