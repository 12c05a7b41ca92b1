/**
 * Store.submitArtifact (contract/artifactSubmit.ts) on both engines: the same answers, the pending draft's event
 * before the submission's, the same payload text (counted as the same bytes), the next version, and nothing written
 * by a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWorkspaceSession, openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { ArtifactSubmission, DraftSave, Store } from '.';

const MINUTE = 60_000;
const CONSENTED = 10_000;
const STEP_EVENT = { type: 'step.changed', payload: { from: 'workspace', to: 'survey' }, clientTs: 9 };

function submission(sessionId: string, over: Partial<ArtifactSubmission> = {}): ArtifactSubmission {
  return { sessionId, fields: { plan: 'Day 1: Alfama — café' }, clientTs: 9, now: CONSENTED + 5 * MINUTE, timeLimitMs: 30 * MINUTE, after: [STEP_EVENT], ...over };
}

function draft(sessionId: string, fields: Record<string, string>, now: number): DraftSave {
  return { sessionId, fields, baseVersion: null, now, clientTs: 7, step: 'workspace', timeLimitMs: 30 * MINUTE, budgetBytes: 1_000_000, eventIntervalMs: 30_000 };
}

describe.each(STORE_ENGINES)('Store.submitArtifact (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'artifact-submit');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  const workspaceSession = () => insertWorkspaceSession(store, 'study', CONSENTED);
  const events = async (id: string) => (await store.events.listForSession(id)).map((e) => [e.seq, e.type, e.payload, e.clientTs]);

  it('records the coalesced draft first, then the submission and the step change, and stores the version at its event', async () => {
    const id = await workspaceSession();
    const first = draft(id, { plan: 'one' }, CONSENTED + MINUTE);
    await store.saveDraft(first);
    // Within the event interval: saved, not recorded (version 2, recorded 1).
    await store.saveDraft({ ...draft(id, { plan: 'two' }, CONSENTED + MINUTE + 1_000), baseVersion: 1 });
    const before = await store.sessions.storageBytes(id);

    const w = submission(id);
    const r = await store.submitArtifact(w);
    expect(r).toMatchObject({ outcome: 'submitted', version: 1, session: { id, step: 'survey', status: 'active', submittedAt: w.now, updatedAt: w.now } });
    expect(await events(id)).toEqual([
      [1, 'artifact.draft_saved', { fields: { plan: 'one' }, version: 1 }, 7],
      [2, 'artifact.draft_saved', { fields: { plan: 'two' }, version: 2, savedAt: CONSENTED + MINUTE + 1_000 }, null],
      [3, 'artifact.submitted', { version: 1, fields: w.fields }, 9],
      [4, 'step.changed', { from: 'workspace', to: 'survey' }, 9],
    ]);
    expect(await store.artifacts.getDraft(id)).toMatchObject({ fields: { plan: 'two' }, version: 2, recordedVersion: 2, eventSeq: 2, recordedAt: w.now });
    expect(await store.artifacts.listVersions(id)).toEqual([{ sessionId: id, version: 1, fields: w.fields, eventSeq: 3, submittedAt: w.now }]);
    // The same payload texts on both engines: the bytes counted are theirs.
    const texts = [
      `{"fields":{"plan":"two"},"version":2,"savedAt":${CONSENTED + MINUTE + 1_000}}`,
      `{"version":1,"fields":${JSON.stringify(w.fields)}}`,
      '{"from":"workspace","to":"survey"}',
    ];
    expect(await store.sessions.storageBytes(id)).toBe(before + texts.reduce((n, t) => n + Buffer.byteLength(t), 0));
    // Key order included (JSON.parse keeps the stored text's order).
    expect((await store.events.listForSession(id)).slice(1).map((e) => JSON.stringify(e.payload))).toEqual(texts);
  });

  it('records no draft event when the draft is recorded, and numbers a later submission 2', async () => {
    const id = await workspaceSession();
    await store.saveDraft(draft(id, { plan: 'one' }, CONSENTED + MINUTE));
    expect(await store.submitArtifact(submission(id))).toMatchObject({ outcome: 'submitted', version: 1 });
    expect((await events(id)).map((e) => e[1])).toEqual(['artifact.draft_saved', 'artifact.submitted', 'step.changed']);
    // Back at the workspace (as a revision would be), the next submission is version 2.
    await store.sessions.update(id, { step: 'workspace' }, CONSENTED + 6 * MINUTE);
    const again = await store.submitArtifact(submission(id, { fields: { plan: 'revised' }, now: CONSENTED + 7 * MINUTE, after: [] }));
    expect(again).toMatchObject({ outcome: 'submitted', version: 2 });
    expect((await store.artifacts.listVersions(id)).map((v) => [v.version, v.fields.plan, v.eventSeq])).toEqual([[1, 'Day 1: Alfama — café', 2], [2, 'revised', 4]]);
  });

  it('refuses a session at another step, past its time or over, and writes nothing', async () => {
    const id = await workspaceSession();
    await store.saveDraft(draft(id, { plan: 'one' }, CONSENTED + MINUTE));
    await store.saveDraft({ ...draft(id, { plan: 'two' }, CONSENTED + MINUTE + 1_000), baseVersion: 1 });
    const bytes = await store.sessions.storageBytes(id);
    const late = await store.submitArtifact(submission(id, { now: CONSENTED + 30 * MINUTE }));
    expect(late).toMatchObject({ outcome: 'refused', reason: 'overdue', session: { id, step: 'workspace', status: 'active' } });
    expect(await events(id)).toHaveLength(1);
    expect(await store.artifacts.getDraft(id)).toMatchObject({ version: 2, recordedVersion: 1 });
    expect(await store.sessions.storageBytes(id)).toBe(bytes);

    expect(await store.submitArtifact(submission(id))).toMatchObject({ outcome: 'submitted', version: 1 });
    // A second submit (another tab) finds the session in the survey.
    const twice = await store.submitArtifact(submission(id, { fields: { plan: 'again' } }));
    expect(twice).toMatchObject({ outcome: 'refused', reason: 'wrong_step', session: { step: 'survey' } });
    expect(await store.artifacts.listVersions(id)).toHaveLength(1);

    await store.sessions.update(id, { status: 'completed', step: 'complete' }, CONSENTED + 6 * MINUTE);
    expect(await store.submitArtifact(submission(id))).toMatchObject({ outcome: 'refused', reason: 'ended', session: { status: 'completed' } });
    expect(await store.submitArtifact(submission('no-such-session'))).toEqual({ outcome: 'not_found' });
  });
});
