import type { SurveyAnswerRow, SurveyAnswersRepo } from '../../contract/store';
import { surveyAnswerValues, toSurveyAnswer, type SurveyAnswerRaw } from '../../rows/surveyAnswers';
import { SURVEY_ANSWER_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

export class SurveyAnswersRepository extends SqliteRepository implements Sync<SurveyAnswersRepo> {
  /** One prepared insert per answer, inside the caller's transaction. */
  insert(answers: readonly SurveyAnswerRow[]): void {
    answers.forEach((a, i) => this.q.run(SURVEY_ANSWER_SQL.insertOne, ...surveyAnswerValues(a, i)));
  }

  listForSession(sessionId: string): SurveyAnswerRow[] {
    return this.q.rows<SurveyAnswerRaw>(SURVEY_ANSWER_SQL.listForSession, sessionId).map(toSurveyAnswer);
  }

  hasAnswers(sessionId: string): boolean {
    return this.q.one(SURVEY_ANSWER_SQL.hasAnswers, sessionId) !== undefined;
  }
}
