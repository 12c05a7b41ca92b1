/**
 * The older `telemetry` socket event counts against the session's storage budget like chat and drafts: once
 * the budget is used up it is refused with storage_full and nothing more is stored (the audit stored 4.7× a
 * session's budget through it). Real server, real store on both engines, real socket.io client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectSocket, join, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

const BUDGET = 6 * 1024;

describe.each(STORE_ENGINES)('telemetry under the storage budget (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ engine, storage: { sessionBudgetBytes: BUDGET, draftEventIntervalMs: 5_000 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses telemetry past the budget with storage_full and keeps the session within it', async () => {
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: `telemetry-budget-${engine}` });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    const store = t.server.store;
    const usedAtStart = await store.sessions.storageBytes(j.sessionId);
    expect(usedAtStart).toBeLessThan(BUDGET / 2);

    let accepted = 0;
    let refusal: { code: string; message: string } | undefined;
    // Each event holds ~100 bytes: the budget's headroom is used up well within the socket's flood guard (120 per 10 s).
    for (let i = 0; i < 110 && !refusal; i++) {
      const reply = await call(socket, 'telemetry', { kind: 'paste', chars: 1000 + i, target: 't'.repeat(64), clientTs: Date.now() });
      if (reply.ok) accepted++;
      else refusal = reply.error;
    }
    expect(refusal).toMatchObject({ code: 'storage_full', message: expect.stringContaining('storage budget is used up') });
    expect(accepted).toBeGreaterThan(10); // the headroom of ~3 KB or more held many
    const used = await store.sessions.storageBytes(j.sessionId);
    expect(used).toBeLessThanOrEqual(BUDGET);
    const pastes = (await store.events.listForSession(j.sessionId)).filter((e) => e.type === 'telemetry.paste');
    expect(pastes).toHaveLength(accepted);

    // A further event of that size is refused as well, and nothing of it is stored.
    const again = await call(socket, 'telemetry', { kind: 'paste', chars: 2000, target: 't'.repeat(64), clientTs: Date.now() });
    expect(again).toMatchObject({ ok: false, error: { code: 'storage_full' } });
    expect(await store.sessions.storageBytes(j.sessionId)).toBe(used);
  });
});
