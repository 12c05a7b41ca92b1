import type { SurveySubmit } from '../../common/events';
import { checkSurveyAnswers, seatOfCondition, surveyForSeat } from '../../common/survey';
import { ServiceError, type ServiceContext } from './serviceContext';
import { activeAt, checkActive, endSessionWithAnswers, raced, requireActive } from './lifecycle';
import { sessionDefinitions } from './knownSessions';

/**
 * Stores the survey answers (validated against the survey definition) and completes the session. The session is
 * taken to be active at the survey without reading it (its definitions are known, and no time limit runs at the
 * survey): the compare-and-set checks exactly that. Refusals are the ones a read first gave: with invalid answers the
 * row is read, so that the step's refusal (and a time-out it records) still comes first.
 */
export async function submitSurvey(ctx: ServiceContext, sessionId: string, p: SurveySubmit): Promise<void> {
  const s = activeAt(await sessionDefinitions(ctx, sessionId), 'survey');
  const survey = surveyForSeat(s.survey, seatOfCondition(s.condition)); // a teamwork seat answers only its arm's items
  const problem = checkSurveyAnswers(survey, p.answers);
  if (problem) {
    await requireActive(ctx, sessionId, ['survey']);
    throw new ServiceError('invalid_input', problem.message, problem.field);
  }
  const check = survey.items.find((i) => i.kind === 'attention_check');
  const attentionCheckPassed = check && check.kind === 'attention_check' ? p.answers[check.id] === check.expected : null;
  const submitted = { type: 'survey.submitted', payload: { surveyId: survey.id, answers: p.answers, attentionCheckPassed }, clientTs: p.clientTs };
  const answers = survey.items
    .filter((item) => p.answers[item.id] !== undefined)
    .map((item) => {
      const value = p.answers[item.id];
      return { surveyId: survey.id, itemId: item.id, itemKind: item.kind, valueNum: typeof value === 'number' ? value : null, valueText: typeof value === 'string' ? value : null };
    });
  // A compare-and-set on the step and status taken above, with the answers in the same store call: a second submit
  // (another socket) finds the session completed and writes nothing.
  const seqs = await endSessionWithAnswers(ctx.store, s, ctx.now(), { before: [submitted] }, answers);
  if (!seqs) {
    // s holds the row as it is; requireActive also records a time-out it finds due (a session still at the workspace).
    if (s.session.status === 'active' && s.session.step !== 'survey') await requireActive(ctx, sessionId, ['survey']);
    checkActive(s, ['survey']);
    throw raced();
  }
}
