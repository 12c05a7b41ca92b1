/**
 * Taking over a participant's session with an id that is not a secret (issue 15), over real HTTP and real
 * socket.io clients on both store engines: a link with only PROLIFIC_PID or participant_label (a fresh session
 * of its own, as for anyone: joinOracle.test.ts), or the victim's PID with another SESSION_ID, never opens the victim's session and never locks the victim out;
 * the same per-visit id or the resume code reopens it, and every newly issued token revokes the old ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { callOk, connectSocket, join, postJson, startTestServer, toWorkspace, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

const STUDY = 'visualization';

/** Resolves 'unauthorized' or 'connected' for a fresh socket with this token. */
async function handshake(t: TestServer, token: string): Promise<'connected' | string> {
  const socket: ParticipantClient = connect(t.server.url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    return await new Promise((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('connect_error', (err) => resolve(err.message));
    });
  } finally {
    socket.close();
  }
}

/** Resolves once the server disconnects this socket (or rejects after a few seconds). */
function serverDisconnect(socket: ParticipantClient): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!socket.connected) return resolve('already');
    const timer = setTimeout(() => reject(new Error('socket was not disconnected')), 5000);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

describe.each(STORE_ENGINES)('session takeover by a known id (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });
  const joinRaw = (params: Record<string, string>) => postJson(`${t.server.url}/api/join`, { studyId: STUDY, params });
  const resume = (params: Record<string, string>, code: string) => postJson(`${t.server.url}/api/join/resume`, { studyId: STUDY, params, code });

  async function victimWithDraft(params: Record<string, string>) {
    const victim = await join(t, STUDY, params);
    const socket = await connectSocket(t, victim.token);
    await toWorkspace(socket);
    await callOk(socket, 'artifact:draft', { fields: { hypothesis: 'the victim private draft' }, clientTs: Date.now() });
    return { victim, socket };
  }

  for (const [name, params] of [
    ['PROLIFIC_PID only', { PROLIFIC_PID: `pid-only-${engine}` }],
    ['participant_label only', { participant_label: `label-only-${engine}` }],
  ] as const) {
    it(`a link with ${name} opened in another browser gets a fresh session with the resume-code offer, never the session`, async () => {
      const { victim, socket } = await victimWithDraft(params);

      // Answered as for anyone with that link (tests/security/joinOracle.test.ts): a session of its own at consent.
      const other = await joinRaw(params);
      expect(other.status).toBe(200);
      expect(other.body).toMatchObject({ ok: true, data: { preview: false, resumed: false, offerResume: true } });
      expect(JSON.stringify(other.body)).not.toContain(victim.sessionId);
      const otherState = await callOk(await connectSocket(t, other.body.data.token), 'session:state', {});
      expect(otherState).toMatchObject({ step: 'consent', draft: null });
      // The victim's browser is untouched: still connected, its token still opens the session.
      expect(socket.connected).toBe(true);
      expect((await callOk(socket, 'session:state', {})).draft?.fields.hypothesis).toBe('the victim private draft');
      expect(await handshake(t, victim.token)).toBe('connected');
    });
  }

  it("the victim's PID with another SESSION_ID starts its own session and locks nobody out (either order)", async () => {
    const { victim } = await victimWithDraft({ PROLIFIC_PID: `v1-${engine}`, STUDY_ID: 'st', SESSION_ID: 'victim-visit' });
    const attacker = await join(t, STUDY, { PROLIFIC_PID: `v1-${engine}`, STUDY_ID: 'st', SESSION_ID: 'attacker-guess' });
    expect(attacker.sessionId).not.toBe(victim.sessionId);
    expect(attacker.resumed).toBe(false);
    const attackerSocket = await connectSocket(t, attacker.token);
    expect((await callOk(attackerSocket, 'session:state', {})).draft).toBeNull();
    const back = await join(t, STUDY, { PROLIFIC_PID: `v1-${engine}`, STUDY_ID: 'st', SESSION_ID: 'victim-visit' });
    expect(back).toMatchObject({ sessionId: victim.sessionId, resumed: true });

    // The attacker got in first with the victim's PID: the victim's own link still gets a session of their own.
    const squatter = await join(t, STUDY, { PROLIFIC_PID: `v2-${engine}`, STUDY_ID: 'st', SESSION_ID: 'squatter' });
    const real = await joinRaw({ PROLIFIC_PID: `v2-${engine}`, STUDY_ID: 'st', SESSION_ID: 'real-visit' });
    expect(real.body.ok).toBe(true);
    expect(real.body.data).toMatchObject({ preview: false, resumed: false });
    expect(real.body.data.sessionId).not.toBe(squatter.sessionId);
  });

  it('MTurk: a worker id without the assignment gets a session of its own; the same assignment resumes', async () => {
    const first = await join(t, 'travel-planning', { workerId: `W-${engine}`, assignmentId: 'A-1', hitId: 'H-1' });
    const res = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { workerId: `W-${engine}`, hitId: 'H-1' } });
    expect(res.body).toMatchObject({ ok: true, data: { preview: false, resumed: false, offerResume: true } });
    expect(res.body.data.sessionId).not.toBe(first.sessionId);
    const same = await join(t, 'travel-planning', { workerId: `W-${engine}`, assignmentId: 'A-1', hitId: 'H-1' });
    expect(same.sessionId).toBe(first.sessionId);
  });

  it('the same per-visit id resumes in a new browser; the old token stops working and its socket is disconnected', async () => {
    const params = { PROLIFIC_PID: `move-${engine}`, STUDY_ID: 'st', SESSION_ID: 'own-visit' };
    const { victim: first, socket } = await victimWithDraft(params);
    const gone = serverDisconnect(socket);
    const second = await join(t, STUDY, params);
    expect(second).toMatchObject({ sessionId: first.sessionId, resumed: true });
    expect(second.token).not.toBe(first.token);
    expect(await gone).toBe('io server disconnect');
    expect(await handshake(t, first.token)).toBe('unauthorized');
    const s2 = await connectSocket(t, second.token);
    expect((await callOk(s2, 'session:state', {})).draft?.fields.hypothesis).toBe('the victim private draft');
    const upload = await fetch(`${t.server.url}/api/session/materials/study_habits.csv`, { headers: { authorization: `Bearer ${first.token}` } });
    expect(upload.status).toBe(401);
  });

  it('the resume code (shown to the participant, stored only hashed) reopens the session; a wrong code does not', async () => {
    const params = { PROLIFIC_PID: `code-${engine}` };
    const { victim, socket } = await victimWithDraft(params);
    expect(victim.resumeCode).toMatch(/^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    const stored = await t.server.store.identities.resumeCodeHash(victim.sessionId);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify(await t.server.store.identities.get(victim.sessionId)) + stored;
    expect(dump).not.toContain(victim.resumeCode!.replace('-', ''));
    expect(dump).not.toContain(victim.resumeCode!);

    const wrongCode = victim.resumeCode!.startsWith('2') ? '3' + victim.resumeCode!.slice(1) : '2' + victim.resumeCode!.slice(1);
    const wrong = await resume(params, wrongCode);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'code' } });
    expect(JSON.stringify(wrong.body)).not.toContain(victim.sessionId);
    // The code of one person's session opens nothing under another id.
    expect((await resume({ PROLIFIC_PID: `someone-else-${engine}` }, victim.resumeCode!)).status).toBe(403);
    expect(socket.connected).toBe(true);

    const gone = serverDisconnect(socket);
    const typed = victim.resumeCode!.toLowerCase().replace('-', ' ');
    const ok = await resume(params, typed);
    expect(ok.body).toMatchObject({ ok: true, data: { preview: false, sessionId: victim.sessionId, resumed: true, resumeCode: victim.resumeCode } });
    expect(await gone).toBe('io server disconnect');
    expect(await handshake(t, victim.token)).toBe('unauthorized');
    const s2 = await connectSocket(t, ok.body.data.token);
    expect((await callOk(s2, 'session:state', {})).draft?.fields.hypothesis).toBe('the victim private draft');
    const events = (await t.server.store.events.listForSession(victim.sessionId)).filter((e) => e.type === 'session.resumed');
    expect(events.map((e) => e.payload)).toEqual([{ via: 'resume_code' }]);
  });

  it('resume-code attempts are rate-limited per IP (even the right code waits)', async () => {
    const limited = await startTestServer({ engine, resumeAttemptsPer15Min: 3 });
    try {
      const params = { participant_label: `rl-${engine}` };
      const j = await postJson(`${limited.server.url}/api/join`, { studyId: STUDY, params });
      const code = j.body.data.resumeCode as string;
      for (let i = 0; i < 3; i++) {
        const r = await postJson(`${limited.server.url}/api/join/resume`, { studyId: STUDY, params, code: 'ZZZZ-ZZZZ' });
        expect(r.status).toBe(403);
      }
      const blocked = await postJson(`${limited.server.url}/api/join/resume`, { studyId: STUDY, params, code });
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    } finally {
      await limited.close();
    }
  });
});
