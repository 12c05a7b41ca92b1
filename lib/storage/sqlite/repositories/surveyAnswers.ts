import { cachedStatement, type SqliteDatabase } from '../database';
import type { SurveyAnswerRow, SurveyAnswersRepo } from '../../contract/store';
import { surveyAnswerValues, toSurveyAnswer, type SurveyAnswerRaw } from '../../rows/surveyAnswers';
import type { Sync } from '../sync';

export class SurveyAnswersRepository implements Sync<SurveyAnswersRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(answers: readonly SurveyAnswerRow[]): void {
    const statement = cachedStatement(
      this.db,
      `INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const a of answers) statement.run(...surveyAnswerValues(a));
  }

  listForSession(sessionId: string): SurveyAnswerRow[] {
    const rows = cachedStatement(this.db, 'SELECT * FROM survey_answers WHERE session_id = ? ORDER BY rowid').all(sessionId) as SurveyAnswerRaw[];
    return rows.map(toSurveyAnswer);
  }

  hasAnswers(sessionId: string): boolean {
    return cachedStatement(this.db, 'SELECT 1 FROM survey_answers WHERE session_id = ? LIMIT 1').get(sessionId) !== undefined;
  }
}
