import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedSession, seedStudyRow } from '../../tests/support/seedStudy';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { openStore, type Store } from '.';

// The sessions page and dashboard queries (sessionListTypes.ts) on both engines: filters, sort, paging, facts.
describe.each(STORE_ENGINES)('sessions list queries (%s)', (engine) => {
  let store: Store;
  let dataDir: string;
  const ids = { a: '', b: '', p: '', u: '' };

  beforeEach(async () => {
    const target = await createTestStoreTarget(engine, 'session-list');
    dataDir = target.dataDir;
    store = await openStore(target);
    await seedStudyRow(store, 'demo');
    const t0 = Date.UTC(2026, 10, 2, 9, 0, 0);
    ids.a = await seedSession(store, dataDir, 'demo', { startedAt: t0, messages: [{ role: 'user', text: 'one two three' }, { role: 'assistant', text: 'four' }], likert: { ease: 4 } });
    ids.b = await seedSession(store, dataDir, 'demo', { startedAt: t0 + 3_600_000, conditionId: 'clarify-first', messages: [{ role: 'user', text: 'hi' }] });
    ids.p = await seedSession(store, dataDir, 'demo', { startedAt: t0 + 7_200_000, isPilot: true, messages: [] });
    ids.u = await seedSession(store, dataDir, 'demo', { startedAt: t0 + 10_800_000, consented: false });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const all = { pilot: 'include' as const, judged: 'any' as const };

  it('filters, sorts and pages, counting every match', async () => {
    const newest = await store.sessionList.listPage('demo', all, 'started', 'desc', 2, 0);
    expect(newest.total).toBe(4);
    expect(newest.rows.map((r) => r.sessionId)).toEqual([ids.u, ids.p]);
    const next = await store.sessionList.listPage('demo', all, 'started', 'desc', 2, 2);
    expect(next.rows.map((r) => r.sessionId)).toEqual([ids.b, ids.a]);

    const noPilot = await store.sessionList.listPage('demo', { ...all, pilot: 'exclude' }, 'started', 'asc', 10, 0);
    expect(noPilot.rows.map((r) => r.sessionId)).toEqual([ids.a, ids.b, ids.u]);
    const clarify = await store.sessionList.listPage('demo', { ...all, conditionId: 'clarify-first' }, 'started', 'asc', 10, 0);
    expect(clarify.rows.map((r) => r.sessionId)).toEqual([ids.b]);
    const picked = await store.sessionList.listPage('demo', { ...all, sessionIds: [ids.a, ids.u] }, 'messages', 'desc', 10, 0);
    expect(picked.rows.map((r) => r.sessionId)).toEqual([ids.a, ids.u]);
    const window = await store.sessionList.listPage('demo', { ...all, createdFrom: Date.UTC(2026, 10, 2, 10), createdTo: Date.UTC(2026, 10, 2, 11) }, 'started', 'asc', 10, 0);
    expect(window.rows.map((r) => r.sessionId)).toEqual([ids.b]);
    expect((await store.sessionList.listPage('demo', { ...all, judged: 'judged' }, 'quality', 'desc', 10, 0)).total).toBe(0);
  });

  it('returns the same facts, steps and ids as were stored', async () => {
    const facts = await store.sessionList.allFacts('demo', 'exclude');
    expect(facts.map((f) => f.sessionId)).toEqual([ids.a, ids.b, ids.u]);
    const a = facts[0]!;
    expect(a).toMatchObject({ conditionId: 'baseline', isPilot: false, messages: 2, quality: null });
    expect(a.userTokens).toBeGreaterThan(0);
    expect(a.agentTokens).toBeGreaterThan(0);
    expect(facts[2]!.consentedAt).toBeNull();
    expect((await store.sessionList.sessionIds('demo')).sort()).toEqual(Object.values(ids).sort());
    await store.events.append(ids.b, 'step.changed', { from: 'workspace', to: 'survey' }, Date.UTC(2026, 10, 2, 11), null);
    const steps = await store.sessionList.stepsReached('demo');
    expect(steps.filter((s) => s.sessionId === ids.b).map((s) => s.step)).toContain('survey');
  });
});
