/**
 * SessionsRepo.change (contract/sessions.ts) on both engines: the events in order with consecutive seqs after the
 * session's earlier ones, their payload bytes in the storage counter, the patch applied as update applies it (absent
 * keys kept, null written), and seqs without gaps or duplicates when changes race plain appends. SessionsRepo.changeFrom:
 * the same change made only while the row is at the given step and status, exactly one of racing changes applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWorkspaceSession, openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { Store } from '.';

const CONSENTED = 10_000;

describe.each(STORE_ENGINES)('SessionsRepo.change (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'session-change');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  it('appends the events after the earlier ones, counts their bytes, and sets only the patched columns', async () => {
    const id = await insertWorkspaceSession(store, 'study', CONSENTED);
    await store.events.append(id, 'session.created', { studyId: 'study' }, CONSENTED, null);
    const before = await store.sessions.storageBytes(id);
    const submitted = { version: 1, fields: { plan: 'Día 1: Alfama — café ☕' } };
    const now = CONSENTED + 60_000;

    const changed = await store.transaction(async (tx) => {
      await tx.sessions.getForUpdate(id);
      return tx.sessions.change(
        id,
        [
          { type: 'artifact.submitted', payload: submitted, clientTs: 41 },
          { type: 'step.changed', payload: { from: 'workspace', to: 'survey' }, clientTs: null },
        ],
        { step: 'survey', submittedAt: now },
        now,
      );
    });

    expect(changed.seqs).toEqual([2, 3]);
    expect(changed.session).toMatchObject({ id, step: 'survey', status: 'active', submittedAt: now, consentedAt: CONSENTED, endedAt: null, updatedAt: now });
    expect(await store.sessions.get(id)).toEqual(changed.session);
    expect((await store.events.listForSession(id)).map((e) => [e.seq, e.type, e.payload, e.serverTs, e.clientTs])).toEqual([
      [1, 'session.created', { studyId: 'study' }, CONSENTED, null],
      [2, 'artifact.submitted', submitted, now, 41],
      [3, 'step.changed', { from: 'workspace', to: 'survey' }, now, null],
    ]);
    const bytes = Buffer.byteLength(JSON.stringify(submitted)) + Buffer.byteLength('{"from":"workspace","to":"survey"}');
    expect(await store.sessions.storageBytes(id)).toBe(before + bytes);
  });

  it('without events updates the row alone; a null in the patch is written, a key left out is kept', async () => {
    const id = await insertWorkspaceSession(store, 'study', CONSENTED);
    await store.sessions.update(id, { consentVersion: 'v1' }, CONSENTED);
    const bytes = await store.sessions.storageBytes(id);
    const changed = await store.sessions.change(id, [], { consentVersion: null, status: 'timed_out', endedAt: CONSENTED + 5 }, CONSENTED + 5);
    expect(changed.seqs).toEqual([]);
    expect(changed.session).toMatchObject({ consentVersion: null, status: 'timed_out', endedAt: CONSENTED + 5, step: 'workspace', consentedAt: CONSENTED });
    expect(await store.events.count(id)).toBe(0);
    expect(await store.sessions.storageBytes(id)).toBe(bytes);
  });

  it('refuses a session that does not exist and writes nothing', async () => {
    const eventsBefore = await store.events.count();
    await expect(store.sessions.change('no-such-session', [{ type: 'step.changed', payload: {}, clientTs: null }], { step: 'survey' }, 1)).rejects.toThrow(
      /no-such-session/,
    );
    expect(await store.events.count()).toBe(eventsBefore);
  });

  it('gives seqs without gaps or duplicates when changes race plain appends on the same session', async () => {
    const id = await insertWorkspaceSession(store, 'study', CONSENTED);
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      work.push(
        store.transaction(async (tx) => {
          await tx.sessions.getForUpdate(id);
          return tx.sessions.change(id, [
            { type: 'a', payload: { i }, clientTs: null },
            { type: 'b', payload: { i }, clientTs: null },
          ], {}, CONSENTED + i);
        }),
      );
      work.push(store.events.append(id, 'connection.opened', { i }, CONSENTED + i, null));
    }
    await Promise.all(work);
    const events = await store.events.listForSession(id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 36 }, (_, k) => k + 1));
    // Each change's two events are adjacent: nothing was appended between them.
    for (const [k, e] of events.entries()) if (e.type === 'a') expect(events[k + 1]).toMatchObject({ type: 'b', payload: e.payload });
  });

  describe('changeFrom', () => {
    const toSurvey = (i: number) => [{ type: 'step.changed', payload: { from: 'workspace', to: 'survey', i }, clientTs: i }];

    it('changes the row at the expected step and status as change does', async () => {
      const id = await insertWorkspaceSession(store, 'study', CONSENTED);
      await store.events.append(id, 'session.created', {}, CONSENTED, null);
      const now = CONSENTED + 7;
      const outcome = await store.sessions.changeFrom(id, { step: 'workspace', status: 'active' }, toSurvey(1), { step: 'survey', submittedAt: now }, now);
      expect(outcome).toMatchObject({ changed: true, seqs: [2], session: { id, step: 'survey', submittedAt: now, updatedAt: now } });
      expect(await store.sessions.get(id)).toEqual(outcome!.session);
      expect((await store.events.listForSession(id)).map((e) => [e.seq, e.type, e.clientTs])).toEqual([
        [1, 'session.created', null],
        [2, 'step.changed', 1],
      ]);
    });

    it('leaves a row at another step or status as it is and answers it', async () => {
      const id = await insertWorkspaceSession(store, 'study', CONSENTED);
      const row = (await store.sessions.get(id))!;
      const bytes = await store.sessions.storageBytes(id);
      for (const from of [{ step: 'instructions', status: 'active' }, { step: 'workspace', status: 'completed' }] as const) {
        const outcome = await store.sessions.changeFrom(id, from, toSurvey(2), { step: 'survey' }, CONSENTED + 9);
        expect(outcome).toEqual({ changed: false, session: row });
      }
      expect(await store.sessions.get(id)).toEqual(row);
      expect(await store.events.count(id)).toBe(0);
      expect(await store.sessions.storageBytes(id)).toBe(bytes);
    });

    it('answers undefined for a session that does not exist and writes nothing', async () => {
      const eventsBefore = await store.events.count();
      expect(await store.sessions.changeFrom('no-such-session', { step: 'workspace', status: 'active' }, toSurvey(3), { step: 'survey' }, 1)).toBeUndefined();
      expect(await store.events.count()).toBe(eventsBefore);
    });

    it('applies exactly one of several racing changes from the same step', async () => {
      const id = await insertWorkspaceSession(store, 'study', CONSENTED);
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.sessions.changeFrom(id, { step: 'workspace', status: 'active' }, toSurvey(i), { step: 'survey' }, CONSENTED + i)),
      );
      const winners = outcomes.filter((o) => o!.changed);
      expect(winners).toHaveLength(1);
      // The others answer the row the winner left.
      for (const o of outcomes) expect(o!.session).toMatchObject({ step: 'survey', updatedAt: winners[0]!.session.updatedAt });
      const events = await store.events.listForSession(id);
      expect(events.map((e) => [e.seq, e.type])).toEqual([[1, 'step.changed']]);
      expect(events[0]!.clientTs).toBe(winners[0]!.session.updatedAt - CONSENTED);
    });
  });
});
