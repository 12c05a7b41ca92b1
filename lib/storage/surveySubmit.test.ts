/**
 * Store.submitSurvey (contract/surveySubmit.ts) on both engines: the ending as a compare-and-set with the answers at
 * its first event's seq, in their order and with their text as given, and nothing written when the change is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWorkspaceSession, openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { Store, SurveySubmission } from '.';

const NOW = 500_000;
const ANSWERS = [
  { surveyId: 'post', itemId: 'useful', itemKind: 'likert', valueNum: 4, valueText: null },
  // Quotes, a backslash, a line break and non-ASCII: carried as JSON to PostgreSQL, stored as given.
  { surveyId: 'post', itemId: 'comments', itemKind: 'text', valueNum: null, valueText: 'It said "maybe" \\ then\nPraça — ok' },
  { surveyId: 'post', itemId: 'attention', itemKind: 'attention_check', valueNum: 3, valueText: null },
];

function submission(sessionId: string, over: Partial<SurveySubmission> = {}): SurveySubmission {
  return {
    sessionId,
    from: { step: 'survey', status: 'active' },
    events: [
      { type: 'survey.submitted', payload: { surveyId: 'post' }, clientTs: 11 },
      { type: 'step.changed', payload: { from: 'survey', to: 'complete' }, clientTs: null },
      { type: 'session.completed', payload: { outcome: 'completed', code: 'C0DE' }, clientTs: null },
    ],
    patch: { status: 'completed', endedAt: NOW, step: 'complete' },
    now: NOW,
    answers: ANSWERS,
    ...over,
  };
}

describe.each(STORE_ENGINES)('Store.submitSurvey (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'survey-submit');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  const surveySession = async () => {
    const id = await insertWorkspaceSession(store, 'study', 10_000);
    await store.sessions.update(id, { step: 'survey' }, 20_000);
    return id;
  };

  it('ends the session and stores the answers at the first event, in their order, as given', async () => {
    const id = await surveySession();
    const r = await store.submitSurvey(submission(id));
    expect(r).toMatchObject({ changed: true, seqs: [1, 2, 3], session: { id, step: 'complete', status: 'completed', endedAt: NOW } });
    expect((await store.events.listForSession(id)).map((e) => e.type)).toEqual(['survey.submitted', 'step.changed', 'session.completed']);
    expect(await store.surveyAnswers.listForSession(id)).toEqual(ANSWERS.map((a) => ({ ...a, sessionId: id, eventSeq: 1, createdAt: NOW })));
  });

  it('writes nothing when the session moved on first, and answers undefined for no session', async () => {
    const id = await surveySession();
    expect(await store.submitSurvey(submission(id))).toMatchObject({ changed: true });
    // A second submit (another tab) read the session at the survey: the change is lost.
    const again = await store.submitSurvey(submission(id, { answers: [{ ...ANSWERS[0]!, valueNum: 1 }] }));
    expect(again).toMatchObject({ changed: false, session: { step: 'complete', status: 'completed' } });
    expect((await store.surveyAnswers.listForSession(id)).map((a) => a.valueNum)).toEqual([4, null, 3]);
    expect(await store.events.listForSession(id)).toHaveLength(3);
    expect(await store.submitSurvey(submission('no-such-session'))).toBeUndefined();
    // No answers (every item optional and skipped): the ending alone.
    const quiet = await surveySession();
    expect(await store.submitSurvey(submission(quiet, { answers: [] }))).toMatchObject({ changed: true, seqs: [1, 2, 3] });
    expect(await store.surveyAnswers.listForSession(quiet)).toEqual([]);
  });
});
