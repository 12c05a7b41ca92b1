import type { SurveySubmit } from '../../common/events';
import { checkSurveyAnswers, seatOfCondition, surveyForSeat } from '../../common/survey';
import { ServiceError, type ServiceContext } from './serviceContext';
import { checkActive, endSessionWithAnswers, raced, requireActive } from './lifecycle';

/** Stores the survey answers (validated against the survey definition) and completes the session. */
export async function submitSurvey(ctx: ServiceContext, sessionId: string, p: SurveySubmit): Promise<void> {
  const s = await requireActive(ctx, sessionId, ['survey']);
  const survey = surveyForSeat(s.survey, seatOfCondition(s.condition)); // a teamwork seat answers only its arm's items
  const problem = checkSurveyAnswers(survey, p.answers);
  if (problem) throw new ServiceError('invalid_input', problem.message, problem.field);
  const check = survey.items.find((i) => i.kind === 'attention_check');
  const attentionCheckPassed = check && check.kind === 'attention_check' ? p.answers[check.id] === check.expected : null;
  const submitted = { type: 'survey.submitted', payload: { surveyId: survey.id, answers: p.answers, attentionCheckPassed }, clientTs: p.clientTs };
  const answers = survey.items
    .filter((item) => p.answers[item.id] !== undefined)
    .map((item) => {
      const value = p.answers[item.id];
      return { surveyId: survey.id, itemId: item.id, itemKind: item.kind, valueNum: typeof value === 'number' ? value : null, valueText: typeof value === 'string' ? value : null };
    });
  // A compare-and-set on the step and status read above, with the answers in the same store call: a second submit
  // (another socket) finds the session completed and writes nothing.
  const seqs = await endSessionWithAnswers(ctx.store, s, ctx.now(), { before: [submitted] }, answers);
  if (!seqs) {
    checkActive(s, ['survey']);
    throw raced();
  }
}
