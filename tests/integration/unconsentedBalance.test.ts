/**
 * Condition balance and visits that never consent (issue 15), on every store engine, through real joins
 * with a controlled clock: an unconsented visit holds a balanced slot for UNCONSENTED_SLOT_MS only (bots
 * at the consent step, bare-link visits and closed tabs cannot starve a condition); consented sessions
 * count for good. rng () => 0 breaks ties towards the first condition (baseline, then clarify-first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, join, startTestServer, type TestServer } from '../support/integrationHarness';
import { UNCONSENTED_SLOT_MS } from '../../server/services/assignment';
import { STORE_ENGINES } from '../support/testStores';

describe.each(STORE_ENGINES)('unconsented visits and balance (%s)', (engine) => {
  let t: TestServer;
  let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
  beforeAll(async () => {
    t = await startTestServer({ engine, now: () => clock, rng: () => 0 });
  });
  afterAll(async () => {
    await t?.close();
  });
  let n = 0;
  const visit = async () => {
    n++;
    const j = await join(t, 'visualization', { PROLIFIC_PID: `bal-${engine}-${n}`, STUDY_ID: 'st', SESSION_ID: `v-${n}` });
    return { ...j, conditionId: (await t.server.store.sessions.get(j.sessionId))!.conditionId };
  };
  const consent = async (token: string) => {
    const socket = await connectSocket(t, token);
    const state = await callOk(socket, 'session:state', {});
    await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clock });
    socket.close();
  };

  it('counts unconsented visits only while they are young; consented sessions always', async () => {
    // Three visits that never get past the consent step: baseline, clarify-first, baseline.
    expect([(await visit()).conditionId, (await visit()).conditionId, (await visit()).conditionId]).toEqual(['baseline', 'clarify-first', 'baseline']);

    clock += UNCONSENTED_SLOT_MS + 1000;
    // They no longer hold slots: the counts are 0/0 and the tie goes to baseline (counting them, it
    // would be clarify-first, with 1 against 2).
    const k1 = await visit();
    expect(k1.conditionId).toBe('baseline');
    // A young unconsented visit does hold its slot.
    const k2 = await visit();
    expect(k2.conditionId).toBe('clarify-first');
    await consent(k1.token);

    clock += UNCONSENTED_SLOT_MS + 1000;
    // k1 consented (baseline counts 1), k2 expired: the next visit goes to clarify-first.
    const k3 = await visit();
    expect(k3.conditionId).toBe('clarify-first');
  });
});
