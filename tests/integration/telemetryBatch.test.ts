/**
 * Integrity telemetry over a real socket.io client against the real server and store (both engines):
 * a batch is stored as a telemetry.batch event plus the session's summary row with the user-agent CLASS
 * (never the header); a malformed batch is refused naming the field and writes nothing; past the
 * per-session bound a batch is refused with limit_reached and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { call, callOk, connectSocket, join, startTestServer, toWorkspace, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';
import { INTERVAL_BINS } from '../../common/telemetryBatch';
import { emptySummary } from '../../common/telemetrySummary';
import { MAX_TELEMETRY_BATCHES_PER_SESSION, MAX_TELEMETRY_BYTES_PER_SESSION } from '../../server/services/telemetry';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1 canary-ua-7781';

const typing = (typedChars: number) => ({
  area: 'artifact' as const,
  typedChars,
  keyEvents: typedChars,
  intervals: { count: typedChars - 1, sumMs: 120 * (typedChars - 1), sumSqMs: 14_400 * (typedChars - 1), bins: Array.from({ length: INTERVAL_BINS }, (_, i) => (i === 4 ? typedChars - 1 : 0)) },
  pauses: 0,
});

describe.each(STORE_ENGINES)('telemetry:batch on the store (%s)', (engine) => {
  let t: TestServer;
  let n = 0;

  beforeAll(async () => {
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A participant in the workspace whose socket sends the given User-Agent header. */
  async function participant(userAgent = IPHONE_UA): Promise<{ sessionId: string; token: string; socket: ParticipantClient }> {
    const j = await join(t, 'visualization', { PROLIFIC_PID: `tele-${++n}-${Math.random().toString(36).slice(2, 8)}`, SESSION_ID: `visit-${n}` });
    const socket: ParticipantClient = connect(t.server.url, { auth: { token: j.token }, transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { 'User-Agent': userAgent } });
    t.sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    await toWorkspace(socket);
    return { sessionId: j.sessionId, token: j.token, socket };
  }

  it('stores a batch as a telemetry.batch event and merges batches into the summary, with the user-agent class only', async () => {
    const { sessionId, socket } = await participant();
    const now = Date.now();
    const first = await callOk(socket, 'telemetry:batch', {
      clientTs: now,
      pastes: [{ target: 'hypothesis', chars: 120, at: now - 5_000 }],
      away: [{ at: now - 4_000, ms: 3_000, hidden: true }],
      typing: [typing(30)],
    });
    expect(first).toEqual({ batches: 1, remaining: MAX_TELEMETRY_BATCHES_PER_SESSION - 1 });
    await callOk(socket, 'telemetry:batch', { clientTs: now + 10_000, pastes: [{ target: 'chat', chars: 40, at: now + 9_000 }], away: [], typing: [typing(11)] });

    const events = (await t.server.store.events.listForSession(sessionId)).filter((e) => e.type === 'telemetry.batch');
    expect(events).toHaveLength(2);
    expect(events[0]!.clientTs).toBe(now);
    expect(events[0]!.payload).toMatchObject({ step: 'workspace', pastes: [{ target: 'hypothesis', chars: 120 }], away: [{ ms: 3_000, hidden: true }], ua: { device: 'mobile', browser: 'safari' } });

    const row = (await t.server.store.telemetry.get(sessionId))!;
    expect(row.batches).toBe(2);
    expect(row.summary).toMatchObject({
      artifact: { pasteCount: 1, pastedChars: 120, typedChars: 41, keyEvents: 41 },
      chat: { pasteCount: 1, pastedChars: 40, typedChars: 0 },
      awayCount: 1,
      awayMs: 3_000,
      hiddenCount: 1,
      device: 'mobile',
      browser: 'safari',
    });
    expect(row.summary.artifact.intervals.count).toBe(29 + 10);
    // The raw header is nowhere in the session's stored rows.
    expect(JSON.stringify([events, row])).not.toContain('canary-ua-7781');
  });

  it('merges batches sent at the same time from two tabs of one session without losing any', async () => {
    const { sessionId, token, socket } = await participant();
    const second = await connectSocket(t, token);
    const send = (s: ParticipantClient, i: number) =>
      callOk(s, 'telemetry:batch', { clientTs: Date.now(), pastes: [{ target: 'chat', chars: i, at: Date.now() }], away: [], typing: [] });
    await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 === 0 ? socket : second, i + 1)));
    const row = (await t.server.store.telemetry.get(sessionId))!;
    expect(row.batches).toBe(10);
    expect(row.summary.chat.pasteCount).toBe(10);
    expect(row.summary.chat.pastedChars).toBe(55); // 1 + 2 + … + 10
    expect((await t.server.store.events.listForSession(sessionId)).filter((e) => e.type === 'telemetry.batch')).toHaveLength(10);
  });

  it.each([
    ['pastes.0.chars', { pastes: [{ target: 'chat', chars: -1, at: 1 }], away: [], typing: [] }, /pastes\.0\.chars/],
    ['pastes.0', { pastes: [{ target: 'chat', chars: 3, at: 1, text: 'the pasted text' }], away: [], typing: [] }, /Unrecognized key.*text/],
    ['typing.0.intervals.bins', { pastes: [], away: [], typing: [{ ...typing(3), intervals: { ...typing(3).intervals, bins: [1, 2] } }] }, /bins/],
    ['pastes', { pastes: Array.from({ length: 51 }, () => ({ target: 'chat', chars: 1, at: 1 })), away: [], typing: [] }, /at most 50/],
    ['away', { pastes: [], typing: [] }, /away/],
  ])('refuses a batch with a bad %s, naming it, and writes nothing', async (field, body, message) => {
    const { sessionId, socket } = await participant();
    const eventsBefore = await t.server.store.events.count(sessionId);
    const reply = await call(socket, 'telemetry:batch', { clientTs: Date.now(), ...body });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_input', field } });
    if (!reply.ok) {
      expect(reply.error.message).toMatch(/^telemetry:batch: /);
      expect(reply.error.message).toMatch(message);
    }
    expect(await t.server.store.events.count(sessionId)).toBe(eventsBefore);
    expect(await t.server.store.telemetry.get(sessionId)).toBeUndefined();
  });

  it('refuses batches past the per-session count and byte bounds with limit_reached, writing nothing', async () => {
    const batch = () => ({ clientTs: Date.now(), pastes: [{ target: 'chat', chars: 5, at: Date.now() }], away: [], typing: [] });
    // A session that already sent all but one of its batches (the row as the service leaves it).
    const a = await participant();
    await t.server.store.telemetry.put({ sessionId: a.sessionId, summary: emptySummary(), batches: MAX_TELEMETRY_BATCHES_PER_SESSION - 1, bytes: 1_000, updatedAt: Date.now() });
    expect(await callOk(a.socket, 'telemetry:batch', batch())).toEqual({ batches: MAX_TELEMETRY_BATCHES_PER_SESSION, remaining: 0 });
    const eventsBefore = await t.server.store.events.count(a.sessionId);
    const over = await call(a.socket, 'telemetry:batch', batch());
    expect(over).toMatchObject({ ok: false, error: { code: 'limit_reached' } });
    if (!over.ok) expect(over.error.message).toContain(`${MAX_TELEMETRY_BATCHES_PER_SESSION} batches`);
    expect(await t.server.store.events.count(a.sessionId)).toBe(eventsBefore);
    expect((await t.server.store.telemetry.get(a.sessionId))!.batches).toBe(MAX_TELEMETRY_BATCHES_PER_SESSION);

    // The byte bound: a session 50 bytes short of it cannot send a batch of ~80 bytes.
    const b = await participant();
    await t.server.store.telemetry.put({ sessionId: b.sessionId, summary: emptySummary(), batches: 3, bytes: MAX_TELEMETRY_BYTES_PER_SESSION - 50, updatedAt: Date.now() });
    expect(await call(b.socket, 'telemetry:batch', batch())).toMatchObject({ ok: false, error: { code: 'limit_reached' } });
    expect((await t.server.store.telemetry.get(b.sessionId))!.batches).toBe(3);
    // Other events of the session are unaffected by a used-up telemetry budget.
    expect((await callOk(b.socket, 'session:state', {})).step).toBe('workspace');
  });

  it('refuses telemetry from a session that has ended (declined)', async () => {
    const j = await join(t, 'visualization', { PROLIFIC_PID: `tele-declined-${++n}` });
    const socket: ParticipantClient = connect(t.server.url, { auth: { token: j.token }, transports: ['websocket'], reconnection: false, forceNew: true });
    t.sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const state = await callOk(socket, 'session:state', {});
    await callOk(socket, 'consent:respond', { accept: false, version: state.consent.version, clientTs: Date.now() });
    const reply = await call(socket, 'telemetry:batch', { clientTs: Date.now(), pastes: [], away: [], typing: [] });
    expect(reply).toMatchObject({ ok: false, error: { code: 'session_over' } });
    expect(await t.server.store.telemetry.get(j.sessionId)).toBeUndefined();
  });
});
