/**
 * Participant tokens as an attacker sees them: how they are made and stored, what they open, whether
 * a platform id alone is enough to take over someone's session, and where a token could leak
 * (request log, trajectory, Referer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callOk, connectSocket, join, postJson, toWorkspace } from '../support/integrationHarness';
import { hashToken } from '../../server/services/participantTokens';
import { tinyPng } from '../support/png';
import { adminLogin, startAdminServer, tryConnect, type LoggedServer } from './support';
import { io as connect } from 'socket.io-client';
import { startTestServer } from '../support/integrationHarness';

const ADMIN_PASSWORD = 'security-review-password-2';
let t: LoggedServer;

beforeAll(async () => {
  t = await startAdminServer(ADMIN_PASSWORD);
});
afterAll(async () => {
  await t?.close();
});

describe('participant tokens', () => {
  it('are 256-bit random base64url strings stored only as SHA-256 hashes', async () => {
    const a = await join(t, 'travel-planning', { participant_label: 'token-shape-1' });
    const b = await join(t, 'travel-planning', { participant_label: 'token-shape-2' });
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    const rows = await t.server.store.tokens.listAll();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(a.token);
    expect(dump).toContain(hashToken(a.token));
  });

  it('a platform id alone does not hand out the session of someone who joined with a platform session id', async () => {
    // The victim opened the Prolific link: PROLIFIC_PID + STUDY_ID + SESSION_ID (the SESSION_ID is known only to them).
    const victim = await join(t, 'visualization', { PROLIFIC_PID: 'victim-pid-0001', STUDY_ID: 'st-1', SESSION_ID: 'secret-session-0001' });
    const vs = await connectSocket(t, victim.token);
    await toWorkspace(vs);
    await callOk(vs, 'artifact:draft', { fields: { hypothesis: 'my private draft' }, clientTs: Date.now() });
    const tokensBefore = await t.server.store.tokens.count();

    // An attacker who learnt the PID (it is not a secret: researchers, logs, screenshots) tries to resume:
    // the PID alone gets a fresh session as anyone with that link would (with the resume-code offer); with a
    // guessed SESSION_ID, a session of their own too.
    const only = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { PROLIFIC_PID: 'victim-pid-0001' } });
    expect(only.body).toMatchObject({ ok: true, data: { preview: false, resumed: false, offerResume: true } });
    expect(only.body.data.sessionId).not.toBe(victim.sessionId);
    expect(await t.server.store.tokens.count()).toBe(tokensBefore + 1);
    const guess = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { PROLIFIC_PID: 'victim-pid-0001', STUDY_ID: 'st-1', SESSION_ID: 'guess' } });
    expect(guess.body.ok).toBe(true);
    expect(guess.body.data.sessionId).not.toBe(victim.sessionId);
    expect((await callOk(await connectSocket(t, guess.body.data.token), 'session:state', {})).draft).toBeNull();

    // The participant reopening their own link still resumes the same session.
    const back = await join(t, 'visualization', { PROLIFIC_PID: 'victim-pid-0001', STUDY_ID: 'st-1', SESSION_ID: 'secret-session-0001' });
    expect(back).toMatchObject({ sessionId: victim.sessionId, resumed: true });
    const again = await connectSocket(t, back.token);
    expect((await callOk(again, 'session:state', {})).draft?.fields.hypothesis).toBe('my private draft');
  });

  it('MTurk: a worker id alone does not resume another assignment', async () => {
    const first = await join(t, 'travel-planning', { workerId: 'WORKER-SEC-1', assignmentId: 'ASSIGN-1', hitId: 'HIT-1' });
    const res = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { workerId: 'WORKER-SEC-1', hitId: 'HIT-1' } });
    expect(res.body).toMatchObject({ ok: true, data: { preview: false, resumed: false, offerResume: true } });
    expect(res.body.data.sessionId).not.toBe(first.sessionId);
    const same = await join(t, 'travel-planning', { workerId: 'WORKER-SEC-1', assignmentId: 'ASSIGN-1', hitId: 'HIT-1' });
    expect(same.sessionId).toBe(first.sessionId);
  });

  it('a token opens its own session only, and never the /admin namespace; an admin cookie never opens a participant socket', async () => {
    const a = await join(t, 'travel-planning', { participant_label: 'ns-check-a' });
    const asAdmin = await tryConnect(`${t.server.url}/admin`, { auth: { token: a.token }, cookie: `tandem_admin=${a.token}` });
    asAdmin.socket.close();
    expect(asAdmin.outcome).not.toBe('connected');
    // Another namespace does not exist (no route around the participant handshake).
    const other = await tryConnect(`${t.server.url}/participants`, { auth: { token: a.token } });
    other.socket.close();
    expect(other.outcome).not.toBe('connected');
    // A cookie (e.g. the researcher's) instead of a token: refused.
    const cookieOnly = await tryConnect(t.server.url, { cookie: 'tandem_admin=whatever; tandem_admin_csrf=x' });
    cookieOnly.socket.close();
    expect(cookieOnly.outcome).toBe('unauthorized');
    // Tokens of the wrong shape are refused without a database hit.
    for (const auth of [{}, { token: 123 }, { token: ['x'.repeat(43)] }, { token: 'x'.repeat(5000) }]) {
      const r = await tryConnect(t.server.url, { auth });
      r.socket.close();
      expect(r.outcome).toBe('unauthorized');
    }
  });
});

describe('the token in a URL (?token=)', () => {
  it('opens nothing (only the Authorization header does), is never written to the request log or the trajectory, and pages send no Referer', async () => {
    const j = await join(t, 'visualization', { PROLIFIC_PID: 'log-leak-pid-1', SESSION_ID: 'log-leak-session-1' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    const auth = { headers: { authorization: `Bearer ${j.token}` } };
    const up = await fetch(`${t.server.url}/api/session/upload?field=plot&name=plot.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${j.token}`, 'content-type': 'image/png' },
      body: new Uint8Array(tinyPng()),
    }).then((r) => r.json() as Promise<any>);
    // The header authorises the session's own files ...
    expect((await fetch(`${t.server.url}/api/session/uploads/${up.data.uploadId}`, auth)).status).toBe(200);
    expect((await fetch(`${t.server.url}/api/session/materials/study_habits.csv`, auth)).status).toBe(200);
    expect((await fetch(`${t.server.url}/api/session/materials/nope.csv`, auth)).status).toBe(404);
    expect((await fetch(`${t.server.url}/api/session/uploads/not-a-uuid`, auth)).status).toBe(404);
    // ... the same token in the URL (old bookmarks, copied links) does not
    const q = `token=${encodeURIComponent(j.token)}`;
    expect((await fetch(`${t.server.url}/api/session/uploads/${up.data.uploadId}?${q}`)).status).toBe(401);
    expect((await fetch(`${t.server.url}/api/session/materials/study_habits.csv?${q}`)).status).toBe(401);
    const page = await fetch(`${t.server.url}/study/visualization?PROLIFIC_PID=log-leak-pid-1&${q}`);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    await call(socket, 'telemetry', { kind: 'focus', clientTs: Date.now() });

    const log = t.logText();
    expect(log).toContain('/api/session/uploads/'); // the request log is on (debug) ...
    expect(log).not.toContain(j.token); // ... but holds neither the token
    expect(log).not.toContain(encodeURIComponent(j.token));
    expect(log).not.toContain('log-leak-pid-1'); // nor the platform id from the study link
    const events = JSON.stringify((await t.server.store.events.listForSession(j.sessionId)));
    expect(events).not.toContain(j.token);
    expect(events).not.toContain('log-leak-pid-1');
    expect(events).not.toContain('log-leak-session-1');
  });
});

describe('cross-site WebSocket hijacking', () => {
  /** Opens a socket the way a page on `origin` would (browsers always send Origin on a WebSocket). */
  function fromOrigin(path: string, origin: string, cookie?: string, auth?: Record<string, unknown>): Promise<string> {
    const socket = connect(`${t.server.url}${path}`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { origin, ...(cookie ? { cookie } : {}) },
      ...(auth ? { auth } : {}),
    });
    return new Promise((resolve) => {
      socket.once('connect', () => {
        socket.close();
        resolve('connected');
      });
      socket.once('connect_error', (err) => {
        socket.close();
        resolve(err.message);
      });
    });
  }

  it("a page on another origin (even a same-site sibling) cannot open the researcher's /admin socket with their cookie", async () => {
    const admin = await adminLogin(t.server.url, ADMIN_PASSWORD);
    const own = new URL(t.server.url).origin;
    expect(await fromOrigin('/admin', own, admin.cookie)).toBe('connected');
    for (const origin of ['http://evil.example', 'http://sibling.127.0.0.1.nip.io', 'null', `${own}.evil.example`]) {
      expect(await fromOrigin('/admin', origin, admin.cookie), origin).not.toBe('connected');
    }
    // The participant namespace behaves the same (its token is in the handshake body, but no reason to differ).
    const j = await join(t, 'travel-planning', { participant_label: 'origin-check' });
    expect(await fromOrigin('/', own, undefined, { token: j.token })).toBe('connected');
    expect(await fromOrigin('/', 'http://evil.example', undefined, { token: j.token })).not.toBe('connected');
  });
});

describe('rate limits', () => {
  it('POST /api/join is limited per client address', async () => {
    const limited = await startTestServer({ joinRateLimitPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await postJson(`${limited.server.url}/api/join`, { studyId: 'travel-planning', params: { participant_label: `rl-${i}` } });
        statuses.push(res.status);
        if (res.status === 429) expect(res.body).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(await limited.server.store.sessions.count()).toBe(3);
    } finally {
      await limited.close();
    }
  });
});
