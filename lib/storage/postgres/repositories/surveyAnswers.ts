import type { SurveyAnswerRow, SurveyAnswersRepo } from '../../contract/store';
import { surveyAnswerValues, toSurveyAnswer, type SurveyAnswerRaw } from '../../rows/surveyAnswers';
import { SURVEY_ANSWER_COLUMNS, SURVEY_ANSWER_SQL } from '../../sql/participants';
import type { Runner } from '../connection';
import { valueTuples } from '../valueTuples';

export class PgSurveyAnswers implements SurveyAnswersRepo {
  constructor(private readonly db: Runner) {}

  /** All answers with one multi-row INSERT (one round trip). */
  async insert(answers: readonly SurveyAnswerRow[]): Promise<void> {
    if (answers.length === 0) return;
    const tuples = valueTuples(answers.map((a, i) => surveyAnswerValues(a, i)));
    await this.db.run(`INSERT INTO survey_answers (${SURVEY_ANSWER_COLUMNS}) VALUES ${tuples.sql}`, tuples.values);
  }

  async listForSession(sessionId: string): Promise<SurveyAnswerRow[]> {
    return (await this.db.rows<SurveyAnswerRaw>(SURVEY_ANSWER_SQL.listForSession.postgres, [sessionId])).map(toSurveyAnswer);
  }

  async hasAnswers(sessionId: string): Promise<boolean> {
    return (await this.db.one(SURVEY_ANSWER_SQL.hasAnswers.postgres, [sessionId])) !== undefined;
  }
}
