/**
 * The store contract of a survey's submission (Store.submitSurvey): the session's ending as a compare-and-set
 * (SessionsRepo.changeFrom: made only while the row is still at `from`) and, when it is made, the answers stored
 * with the seq of its first event (`survey.submitted`), as one call. It replaces a transaction of four round trips
 * on PostgreSQL (BEGIN, the change, the answers' INSERT, COMMIT) with one (tandem_submit_survey, migration 039) and
 * runs in one synchronous transaction on SQLite. When the change is not made (another socket, node or the sweep
 * changed the session first) nothing is written and the row is answered as it is; undefined when there is no such
 * session.
 */
import type { SessionAt, SessionChangeEvent, SessionChangeFrom, SessionPatch } from './sessions';
import type { SurveyAnswerRow } from './submissions';

/** An answer as the survey's submission stores it: its event's seq and its time are the change's. */
export type SurveyAnswerInput = Omit<SurveyAnswerRow, 'sessionId' | 'eventSeq' | 'createdAt'>;

export interface SurveySubmission {
  sessionId: string;
  from: SessionAt;
  /** The ending's events, `survey.submitted` first, and its patch (server/services/lifecycle.ts). */
  events: readonly SessionChangeEvent[];
  patch: SessionPatch;
  now: number;
  /** Stored in this order (answer_order 0, 1, …). */
  answers: readonly SurveyAnswerInput[];
}

export type SurveySubmitResult = SessionChangeFrom | undefined;
