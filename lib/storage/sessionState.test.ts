import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { Store } from '.';

// readSessionState is one read of what session:state shows: it must equal the repositories' own reads.
describe.each(STORE_ENGINES)('Store.readSessionState (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'session-state-rows');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  const newSession = async () => {
    const id = crypto.randomUUID();
    await store.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 5_000 });
    return id;
  };

  it('returns the session, draft, messages, uploads, versions and survey flag as the repositories read them', async () => {
    const id = await newSession();
    await store.sessions.update(id, { step: 'survey', consentedAt: 6_000, submittedAt: 9_000 }, 9_000);
    for (const [i, clientId] of ['a', 'b'].entries()) {
      const r = await store.acknowledgeUserMessage({
        sessionId: id, messageId: `m-${clientId}`, clientId: `client-${clientId}`, text: `hé ${clientId} "quoted"`, tokens: 3, now: 7_000 + i, clientTs: null,
        messageEvent: { type: 'message.user', payload: {} }, followingEvent: { type: 'reply.started', payload: {} },
        step: 'survey', timeLimitMs: 60_000, maxUserMessages: 5, budgetBytes: 1e6, addedBytes: 10,
        lease: { replyId: `r-${clientId}`, owner: { node: 'n', incarnation: 'i' } },
      });
      expect(r.outcome).toBe('stored');
      await store.replyLeases.release(`r-${clientId}`);
    }
    await store.artifacts.saveDraft({ sessionId: id, fields: { answer: 'draft ✓', notes: '' }, eventSeq: 3, savedAt: 8_000, version: 4, recordedVersion: 3, recordedAt: 7_500 });
    await store.artifacts.insertVersion(id, { answer: 'v1' }, 4, 8_100);
    await store.artifacts.insertVersion(id, { answer: 'v2' }, 5, 8_200);
    for (const n of [2, 1])
      await store.uploads.insert({ id: `u${n}`, sessionId: id, fieldId: 'file', fileName: `f${n}.png`, contentType: 'image/png', bytes: 100 * n, sha256: 'ab'.repeat(32), storagePath: `uploads/u${n}`, eventSeq: 5 + n, createdAt: 8_000 + n });
    await store.surveyAnswers.insert([{ sessionId: id, surveyId: 's', itemId: 'ease', itemKind: 'likert', valueNum: 4, valueText: null, eventSeq: 9, createdAt: 9_000 }]);

    const rows = await store.readSessionState(id);
    expect(rows).toEqual({
      session: await store.sessions.get(id),
      draft: await store.artifacts.getDraft(id),
      messages: await store.messages.listForSession(id),
      uploads: await store.uploads.listForSession(id),
      versions: await store.artifacts.listVersions(id),
      surveySubmitted: true,
    });
    expect(rows!.messages.map((m) => m.clientId)).toEqual(['client-a', 'client-b']);
    expect(rows!.uploads.map((u) => u.id)).toEqual(['u1', 'u2']);
    expect(rows!.versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it('returns empty rows for a new session, and nothing for an unknown one', async () => {
    const id = await newSession();
    expect(await store.readSessionState(id)).toEqual({ session: await store.sessions.get(id), draft: undefined, messages: [], uploads: [], versions: [], surveySubmitted: false });
    expect(await store.readSessionState('no-such-session')).toBeUndefined();
  });
});
