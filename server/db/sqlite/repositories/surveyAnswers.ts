import { cachedStatement, type SqliteDatabase } from '../../database';
import type { SurveyAnswerRow, SurveyAnswersRepo } from '../../storeInterface';
import type { Sync } from '../sync';

export class SurveyAnswersRepository implements Sync<SurveyAnswersRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(a: SurveyAnswerRow): void {
    this.db
      .prepare(
        `INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(a.sessionId, a.surveyId, a.itemId, a.itemKind, a.valueNum, a.valueText, a.eventSeq, a.createdAt);
  }

  listForSession(sessionId: string): SurveyAnswerRow[] {
    const rows = cachedStatement(this.db, 'SELECT * FROM survey_answers WHERE session_id = ? ORDER BY rowid').all(sessionId) as {
      session_id: string;
      survey_id: string;
      item_id: string;
      item_kind: string;
      value_num: number | null;
      value_text: string | null;
      event_seq: number;
      created_at: number;
    }[];
    return rows.map((r) => ({
      sessionId: r.session_id,
      surveyId: r.survey_id,
      itemId: r.item_id,
      itemKind: r.item_kind,
      valueNum: r.value_num,
      valueText: r.value_text,
      eventSeq: r.event_seq,
      createdAt: r.created_at,
    }));
  }

  hasAnswers(sessionId: string): boolean {
    return cachedStatement(this.db, 'SELECT 1 FROM survey_answers WHERE session_id = ? LIMIT 1').get(sessionId) !== undefined;
  }
}
