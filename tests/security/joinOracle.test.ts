/**
 * The PID-only join oracle (issue 26, item 8), over real HTTP and socket.io clients on both store engines: a link
 * with a platform id and no per-visit id (PROLIFIC_PID alone, participant_label, an MTurk worker id without its
 * assignment) answers the same whether or not that id took part: the same status, the same body keys, the same
 * values (only the fresh random ids differ, in the same format), a fresh session at its consent step either way;
 * in a closed study the same refusal for both. A first-time participant still starts at once, and the
 * person who took part still gets their session back with its resume code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, join, postJson, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

const STUDY = 'travel-planning';

/** The parts of a join response that say something about the platform id (random ids reduced to their format). */
function shapeOf(res: { status: number; body: any }) {
  const data = res.body.data ?? {};
  const format = (v: unknown) => (typeof v === 'string' ? v.replace(/[0-9a-f]/g, 'h').replace(/[A-Z2-9]/g, 'C').length + typeof v : typeof v);
  return {
    status: res.status,
    ok: res.body.ok,
    keys: Object.keys(data).sort(),
    values: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, ['token', 'sessionId', 'resumeCode'].includes(k) ? format(v) : v])),
  };
}

describe.each(STORE_ENGINES)('PID-only joins answer alike for people who took part and people who did not (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });
  const joinRaw = (params: Record<string, string>) => postJson(`${t.server.url}/api/join`, { studyId: STUDY, params });

  const links: [string, Record<string, string>, Record<string, string>][] = [
    ['PROLIFIC_PID only', { PROLIFIC_PID: `took-part-${engine}` }, { PROLIFIC_PID: `never-here-${engine}` }],
    ['participant_label only', { participant_label: `label-took-part-${engine}` }, { participant_label: `label-never-${engine}` }],
    ['an MTurk worker id without its assignment', { workerId: `W-TOOK-${engine}`, hitId: 'H-1' }, { workerId: `W-NEVER-${engine}`, hitId: 'H-1' }],
  ];
  for (const [name, known, unknown] of links) {
    it(`${name}: the same status, keys and values, and a fresh session at consent either way`, async () => {
      // The person who took part started with a per-visit id where the platform has one, and is in the workspace.
      const firstLink = 'workerId' in known ? { ...known, assignmentId: 'A-1' } : known;
      const participant = await join(t, STUDY, firstLink);
      const theirSocket = await connectSocket(t, participant.token);
      await toWorkspace(theirSocket);

      const forKnown = await joinRaw(known);
      const forUnknown = await joinRaw(unknown);
      expect(shapeOf(forKnown)).toEqual(shapeOf(forUnknown));
      expect(shapeOf(forKnown)).toMatchObject({ status: 200, ok: true, values: { preview: false, resumed: false, offerResume: true } });
      expect(JSON.stringify(forKnown.body)).not.toContain(participant.sessionId);

      // Both tokens open a session of their own at the consent step, with nothing of anyone's work in it.
      const states = [];
      for (const res of [forKnown, forUnknown]) {
        const state = await callOk(await connectSocket(t, res.body.data.token), 'session:state', {});
        states.push({ step: state.step, status: state.status, draft: state.draft, messages: state.messages.length, versions: state.artifactVersions.length });
      }
      expect(states[0]).toEqual(states[1]);
      expect(states[0]).toEqual({ step: 'consent', status: 'active', draft: null, messages: 0, versions: 0 });

      // The participant's own browser is untouched, and their resume code still reopens their session.
      expect(theirSocket.connected).toBe(true);
      expect((await callOk(theirSocket, 'session:state', {})).step).toBe('workspace');
      const resumed = await postJson(`${t.server.url}/api/join/resume`, { studyId: STUDY, params: known, code: participant.resumeCode });
      expect(resumed.body).toMatchObject({ ok: true, data: { sessionId: participant.sessionId, resumed: true } });
    });
  }

  it('a first-time participant starts at once, from a Prolific link with or without SESSION_ID', async () => {
    const full = await join(t, STUDY, { PROLIFIC_PID: `first-${engine}`, STUDY_ID: 'st', SESSION_ID: 'visit-1' });
    expect(full).toMatchObject({ preview: false, resumed: false });
    expect(full).not.toHaveProperty('offerResume');
    const bare = await join(t, STUDY, { PROLIFIC_PID: `first-bare-${engine}` });
    for (const joined of [full, bare]) {
      const socket = await connectSocket(t, joined.token);
      await toWorkspace(socket);
      expect((await callOk(socket, 'session:state', {})).step).toBe('workspace');
    }
  });

  it('a closed study refuses both alike, and the resume code still opens the session', async () => {
    const participant = await join(t, STUDY, { PROLIFIC_PID: `closed-took-part-${engine}` });
    await t.server.store.studies.setStatus(STUDY, 'closed', Date.now());
    try {
      const forKnown = await joinRaw({ PROLIFIC_PID: `closed-took-part-${engine}` });
      const forUnknown = await joinRaw({ PROLIFIC_PID: `closed-never-${engine}` });
      expect(forKnown).toEqual(forUnknown);
      expect(forKnown).toMatchObject({ status: 403, body: { ok: false, error: { code: 'study_unavailable' } } });
      const resumed = await postJson(`${t.server.url}/api/join/resume`, {
        studyId: STUDY,
        params: { PROLIFIC_PID: `closed-took-part-${engine}` },
        code: participant.resumeCode,
      });
      expect(resumed.body).toMatchObject({ ok: true, data: { sessionId: participant.sessionId } });
    } finally {
      await t.server.store.studies.setStatus(STUDY, 'live', Date.now());
    }
  });
});
