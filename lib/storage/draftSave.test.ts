/**
 * Store.saveDraft (contract/draftSave.ts) on both engines: the same answers, the same event payload text and the
 * same bytes counted against the budget, checks in their documented order, and nothing written by a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWorkspaceSession, openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { DraftSave, Store } from '.';

const MINUTE = 60_000;
const CONSENTED = 10_000;

function save(sessionId: string, over: Partial<DraftSave> = {}): DraftSave {
  return {
    sessionId,
    fields: { plan: 'Day 1: Alfama — café' },
    baseVersion: null,
    now: CONSENTED + MINUTE,
    clientTs: 7,
    step: 'workspace',
    timeLimitMs: 30 * MINUTE,
    budgetBytes: 1_000_000,
    eventIntervalMs: 30_000,
    ...over,
  };
}

describe.each(STORE_ENGINES)('Store.saveDraft (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'draft-save');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  const workspaceSession = () => insertWorkspaceSession(store, 'study', CONSENTED);
  const events = async (id: string) => (await store.events.listForSession(id)).map((e) => [e.type, e.payload, e.clientTs]);

  it('records the first save as an event, coalesces saves within the interval, and counts the bytes as the payload text', async () => {
    const id = await workspaceSession();
    const first = save(id);
    expect(await store.saveDraft(first)).toEqual({ outcome: 'saved', savedAt: first.now, version: 1, recorded: true });
    const fieldsJson = JSON.stringify(first.fields);
    const payload = `{"fields":${fieldsJson},"version":1}`;
    // Counted: the event's payload and the draft's current text.
    expect(await store.sessions.storageBytes(id)).toBe(Buffer.byteLength(payload) + Buffer.byteLength(fieldsJson));
    expect(await events(id)).toEqual([['artifact.draft_saved', { fields: first.fields, version: 1 }, 7]]);

    const second = save(id, { fields: { plan: 'Day 1: Alfama. Day 2: Belém.' }, now: first.now + 10_000, baseVersion: 1 });
    expect(await store.saveDraft(second)).toEqual({ outcome: 'saved', savedAt: second.now, version: 2, recorded: false });
    expect(await store.artifacts.getDraft(id)).toMatchObject({ fields: second.fields, version: 2, recordedVersion: 1, savedAt: second.now, recordedAt: first.now });
    expect(await events(id)).toHaveLength(1);

    const third = save(id, { fields: { plan: 'Three days.' }, now: first.now + 30_000 });
    expect(await store.saveDraft(third)).toMatchObject({ outcome: 'saved', version: 3, recorded: true });
    expect((await events(id)).map((e) => e[1])).toEqual([{ fields: first.fields, version: 1 }, { fields: third.fields, version: 3 }]);
  });

  it('answers the stored version for the same fields (key order aside) and writes nothing, whatever the base version', async () => {
    const id = await workspaceSession();
    await store.saveDraft(save(id, { fields: { a: 'x', b: 'y' } }));
    const bytes = await store.sessions.storageBytes(id);
    const again = await store.saveDraft(save(id, { fields: { b: 'y', a: 'x' }, baseVersion: 0, now: CONSENTED + 2 * MINUTE }));
    expect(again).toEqual({ outcome: 'unchanged', savedAt: CONSENTED + MINUTE, version: 1 });
    expect(await store.sessions.storageBytes(id)).toBe(bytes);
  });

  it('refuses a stale base version, a growing save past the budget, and a session that is over, late or at another step', async () => {
    const id = await workspaceSession();
    await store.saveDraft(save(id));
    const conflict = await store.saveDraft(save(id, { fields: { plan: 'other' }, baseVersion: 0 }));
    expect(conflict).toMatchObject({ outcome: 'refused', reason: 'conflict', storedVersion: 1 });

    const used = await store.sessions.storageBytes(id);
    const big = { plan: 'é'.repeat(400) };
    const full = await store.saveDraft(save(id, { fields: big, budgetBytes: used + 100, now: CONSENTED + MINUTE + 1 }));
    const change = Buffer.byteLength(JSON.stringify(big)) - Buffer.byteLength(JSON.stringify(save(id).fields));
    expect(full).toMatchObject({ outcome: 'refused', reason: 'storage_full', storedBytes: used, change });
    // A shrinking save passes a full budget.
    expect(await store.saveDraft(save(id, { fields: { plan: '' }, budgetBytes: 1, now: CONSENTED + MINUTE + 2 }))).toMatchObject({ outcome: 'saved', version: 2 });

    expect(await store.saveDraft(save(id, { now: CONSENTED + 31 * MINUTE }))).toMatchObject({ outcome: 'refused', reason: 'overdue' });
    expect(await store.saveDraft(save(id, { step: 'survey' }))).toMatchObject({ outcome: 'refused', reason: 'wrong_step' });
    await store.sessions.update(id, { status: 'completed' }, CONSENTED + 2 * MINUTE);
    const ended = await store.saveDraft(save(id, { fields: { plan: 'late' } }));
    expect(ended).toMatchObject({ outcome: 'refused', reason: 'ended', session: { id, status: 'completed' } });
    expect(await store.artifacts.getDraft(id)).toMatchObject({ fields: { plan: '' }, version: 2 });
    expect(await store.saveDraft(save('no-such-session'))).toEqual({ outcome: 'not_found' });
  });
});
