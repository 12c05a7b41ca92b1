/**
 * The attention check's correct answer stays on the server: no session:state a browser receives (the
 * ack of session:state, the ack of a step change, the push to a second tab) carries `expected`, while
 * the server still scores the answer (survey.submitted event, sessions.csv attention_check_passed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyPng } from '../support/png';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

/** A visualization participant at the survey step (the shipped study needs a plot upload to submit). */
async function toSurvey(pid: string) {
  const j = await join(t, 'visualization', { PROLIFIC_PID: pid });
  const socket = await connectSocket(t, j.token);
  await toWorkspace(socket);
  const up = await fetch(`${t.server.url}/api/session/upload?field=plot&name=p.png`, {
    method: 'POST',
    headers: { authorization: `Bearer ${j.token}`, 'content-type': 'image/png' },
    body: new Uint8Array(tinyPng()),
  }).then((r) => r.json() as Promise<any>);
  const state = await callOk(socket, 'artifact:submit', { fields: { hypothesis: 'h', code: 'print(1)', plot: up.data.uploadId, interpretation: 'i' }, clientTs: Date.now() });
  return { ...j, socket, state };
}

const answers = (attention: number) => ({ confidence: 3, ai_usefulness: 4, speed: 2, attention, satisfaction: 5 });
const scored = async (sessionId: string) => (await t.server.store.events.listForSession(sessionId)).find((e) => e.type === 'survey.submitted')?.payload;

describe('session:state and the attention check', () => {
  it('never carries the expected answer: not in the first snapshot, the ack of a step change, nor the push to another tab', async () => {
    const j = await join(t, 'visualization', { PROLIFIC_PID: 'attention-1' });
    const tab1 = await connectSocket(t, j.token);
    const tab2 = await connectSocket(t, j.token);
    const first = await callOk(tab1, 'session:state', {});
    expect(first.survey.items.find((i) => i.kind === 'attention_check')).toMatchObject({ id: 'attention', points: 5 }); // the item is shown ...
    expect(keysOf(first).has('expected')).toBe(false); // ... without its answer
    const pushed = nextPush(tab2, 'session:state', (s) => s.step === 'instructions');
    const consented = await callOk(tab1, 'consent:respond', { accept: true, version: first.consent.version, clientTs: Date.now() });
    expect(keysOf(consented).has('expected')).toBe(false);
    expect(keysOf(await pushed).has('expected')).toBe(false);
  });

  it('the server still scores the check: the expected answer passes, another fails', async () => {
    const pass = await toSurvey('attention-2');
    expect(keysOf(pass.state).has('expected')).toBe(false);
    const done = await callOk(pass.socket, 'survey:submit', { answers: answers(4), clientTs: Date.now() });
    expect(done.step).toBe('complete');
    expect(keysOf(done).has('expected')).toBe(false);
    expect(await scored(pass.sessionId)).toMatchObject({ attentionCheckPassed: true });

    const fail = await toSurvey('attention-3');
    await callOk(fail.socket, 'survey:submit', { answers: answers(2), clientTs: Date.now() });
    expect(await scored(fail.sessionId)).toMatchObject({ attentionCheckPassed: false });
  });
});
