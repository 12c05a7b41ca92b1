/**
 * Store.submitSurvey on SQLite: the compare-and-set and the answers of the contract (../contract/surveySubmit.ts) in
 * one synchronous BEGIN IMMEDIATE transaction.
 */
import type { SurveySubmission, SurveySubmitResult } from '../contract/surveySubmit';
import type { SessionsRepo, SurveyAnswersRepo } from '../contract/store';
import type { Sync } from './sync';

interface Repositories {
  sessions: Sync<SessionsRepo>;
  surveyAnswers: Sync<SurveyAnswersRepo>;
}

/** Call inside a transaction that holds the write lock (see createSqliteStore). */
export function submitSurveySync(repos: Repositories, w: SurveySubmission): SurveySubmitResult {
  const changed = repos.sessions.changeFrom(w.sessionId, w.from, w.events, w.patch, w.now);
  if (changed?.changed && w.answers.length > 0) {
    const eventSeq = changed.seqs[0]!;
    repos.surveyAnswers.insert(w.answers.map((a) => ({ ...a, sessionId: w.sessionId, eventSeq, createdAt: w.now })));
  }
  return changed;
}
