/**
 * Condition balance and visits that never consent (issue 15), on every store engine, through real joins
 * with a controlled clock: an unconsented visit holds a balanced slot for UNCONSENTED_SLOT_MS only (bots
 * at the consent step, bare-link visits and closed tabs cannot starve a condition); consented sessions
 * count for good. rng () => 0 breaks ties towards the first condition (baseline, then clarify-first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/**
 * Tasks are balanced the same way when a study has several (join counts them only then: a single task or condition
 * is assigned without reading the study's sessions). travel-planning with a second task and one condition.
 */
describe.each(STORE_ENGINES)('task balance (%s)', (engine) => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-task-balance-'));
  let t: TestServer;
  beforeAll(async () => {
    const study = fs.readFileSync(path.join(ROOT, 'studies/travel-planning.yaml'), 'utf8');
    const secondTask = study.match(/\ntasks:\n([\s\S]*?)\nconditions:/)![1]!.replace('id: city-weekend', 'id: city-weekend-2');
    const oneCondition = study.replace(/\n  - id: clarify-first[\s\S]*?(?=\n\S)/, '');
    fs.writeFileSync(path.join(dir, 'two-tasks.yaml'), oneCondition.replace('\nconditions:', `\n${secondTask}\nconditions:`));
    t = await startTestServer({ engine, studiesDir: dir, surveysDir: path.join(ROOT, 'surveys'), rng: () => 0 });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives each new session the task with the fewest sessions (ties to the first)', async () => {
    const assigned: Array<[string, string]> = [];
    for (let n = 1; n <= 5; n++) {
      const j = await join(t, 'two-tasks', { PROLIFIC_PID: `tasks-${engine}-${n}`, STUDY_ID: 'st', SESSION_ID: `t-${n}` });
      const s = (await t.server.store.sessions.get(j.sessionId))!;
      assigned.push([s.taskId, s.conditionId]);
    }
    expect(assigned).toEqual([
      ['city-weekend', 'baseline'], ['city-weekend-2', 'baseline'], ['city-weekend', 'baseline'], ['city-weekend-2', 'baseline'], ['city-weekend', 'baseline'],
    ]);
  });
});
