/**
 * Withdrawal of a participant who is still working (issue 15), on every store engine, through the
 * researcher's HTTP route on a real server: live activity stops first — the session's socket is
 * disconnected, its reply in flight is aborted, its tokens stop working — and only then are the rows
 * deleted, so nothing is written to a deleted session (no foreign-key errors in the log).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { call, joinToWorkspace, nextPush, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

const PASSWORD = 'withdrawal-live-password-1';

async function adminLogin(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status}`);
  const jar = new Map(res.headers.getSetCookie().map((line) => line.split(';')[0]!.split('=') as [string, string]));
  return { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), csrf: jar.get('tandem_admin_csrf') ?? '' };
}

async function handshake(url: string, token: string): Promise<string> {
  const socket: ParticipantClient = connect(url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    return await new Promise((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('connect_error', (err) => resolve(err.message));
    });
  } finally {
    socket.close();
  }
}

describe.each(STORE_ENGINES)('withdrawal of a live session (%s)', (engine) => {
  let t: TestServer;
  const lines: string[] = [];
  const saved = process.env.ADMIN_PASSWORD;
  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = PASSWORD;
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    // A slow offline assistant (5 tokens/s): the reply is still streaming when the researcher withdraws.
    t = await startTestServer({ engine, logger: pino({ level: 'info' }, sink), offline: { tokensPerSecond: 5 } });
  });
  afterAll(async () => {
    await t?.close();
    if (saved === undefined) delete process.env.ADMIN_PASSWORD;
    else process.env.ADMIN_PASSWORD = saved;
  });

  it('disconnects the socket, aborts the reply and revokes the token before deleting; nothing is written afterwards', async () => {
    const pid = `live-withdraw-${engine}`;
    const p = await joinToWorkspace(t, 'visualization', { PROLIFIC_PID: pid, STUDY_ID: 'st', SESSION_ID: 'visit-1' });
    const firstDelta = nextPush(p.socket, 'chat:delta');
    const sent = await call(p.socket, 'chat:send', { clientId: 'withdraw-msg-1', text: 'Please write a long explanation of the data.', clientTs: Date.now() });
    expect(sent.ok).toBe(true);
    await firstDelta;
    expect(t.server.participants.chat.repliesInFlight).toBe(1);
    let deltasAfter = 0;
    const disconnected = new Promise<string>((resolve) => p.socket.once('disconnect', resolve));

    const admin = await adminLogin(t.server.url);
    const res = await fetch(`${t.server.url}/api/admin/studies/visualization/withdrawals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      body: JSON.stringify({ participant: pid }),
    });
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ ok: true, data: { deletedSessions: 1 } });
    p.socket.on('chat:delta', () => deltasAfter++);

    // When the withdrawal answers, nothing of the session is live any more.
    expect(t.server.participants.chat.repliesInFlight).toBe(0);
    expect(await disconnected).toBe('io server disconnect');
    expect(await handshake(t.server.url, p.token)).toBe('unauthorized');
    expect(await t.server.store.sessions.get(p.sessionId)).toBeUndefined();
    expect((await t.server.store.tokens.listAll()).filter((r) => r.sessionId === p.sessionId)).toEqual([]);

    // Give a reply that kept running (the old behaviour) time to write to the deleted session.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(deltasAfter).toBe(0);
    expect(await t.server.store.messages.count(p.sessionId)).toBe(0);
    expect(await t.server.store.events.count(p.sessionId)).toBe(0);
    const log = lines.join('');
    expect(log).not.toMatch(/foreign key|FOREIGN KEY|violates foreign key/i);
    expect(log.split('\n').filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
