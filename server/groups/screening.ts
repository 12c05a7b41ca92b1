/**
 * The screening step of a group condition: the answers to `group.screening` that a participant gives after consent
 * and before the lobby, with their lobby join. They are stored like survey answers (survey_answers, survey id
 * SCREENING_SURVEY_ID, in the questions' order) beside a `screening.answered` trajectory event, in the lobby's own
 * transaction, so a quota on an answer (`source: answer`) reads them when the join seats people. An answer is final
 * once given: a later join with another value is refused, so nobody changes their answer to get (or keep) a seat.
 */
import { SCREENING_SURVEY_ID, type GroupConfig } from '../../common/group';
import type { StoreTx } from '../../lib/storage';
import { ServiceError, type SessionContext } from '../services/serviceContext';

const EVENT = 'group:lobby:join';

/** The stored screening answers of a session, by question id. */
async function storedAnswers(tx: StoreTx, sessionId: string): Promise<Map<string, string>> {
  const rows = await tx.surveyAnswers.listForSession(sessionId);
  return new Map(rows.filter((a) => a.surveyId === SCREENING_SURVEY_ID && a.valueText !== null).map((a) => [a.itemId, a.valueText!]));
}

/**
 * Checks `given` against the condition's screening questions and stores it the first time; afterwards only the same
 * answers (or none) are accepted. Refuses a missing answer, an unknown question and a value that is not an option,
 * naming `answers.<id>`. A condition without screening questions takes no answers.
 */
export async function takeScreeningAnswers(tx: StoreTx, s: SessionContext, config: GroupConfig, given: Readonly<Record<string, string>> | undefined, now: number): Promise<void> {
  const questions = config.screening ?? [];
  const answers = given ?? {};
  for (const id of Object.keys(answers))
    if (!questions.some((q) => q.id === id)) throw new ServiceError('invalid_input', `${EVENT}: answers.${id}: no such screening question`, `answers.${id}`);
  if (questions.length === 0) return;

  const stored = await storedAnswers(tx, s.session.id);
  const missing = [];
  for (const q of questions) {
    const value = answers[q.id];
    if (stored.has(q.id)) {
      if (value !== undefined && value !== stored.get(q.id))
        throw new ServiceError('invalid_input', `${EVENT}: answers.${q.id}: the answer was given already and cannot be changed`, `answers.${q.id}`);
      continue;
    }
    if (value === undefined) throw new ServiceError('invalid_input', `${EVENT}: answers.${q.id}: answer this question before the lobby`, `answers.${q.id}`);
    if (!q.options.some((o) => o.value === value))
      throw new ServiceError('invalid_input', `${EVENT}: answers.${q.id}: "${value}" is not one of ${q.options.map((o) => o.value).join(', ')}`, `answers.${q.id}`);
    missing.push({ id: q.id, value });
  }
  if (missing.length === 0) return;
  const seq = await tx.events.append(s.session.id, 'screening.answered', { surveyId: SCREENING_SURVEY_ID, answers: Object.fromEntries(missing.map((a) => [a.id, a.value])) }, now, null);
  await tx.surveyAnswers.insert(
    missing.map((a) => ({
      sessionId: s.session.id,
      surveyId: SCREENING_SURVEY_ID,
      itemId: a.id,
      itemKind: 'choice',
      valueNum: null,
      valueText: a.value,
      eventSeq: seq,
      createdAt: now,
    })),
  );
}
