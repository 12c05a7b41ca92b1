/**
 * The server-side time-limit sweep: overdue sessions end as timed_out on time even when no socket is
 * connected (so exports and the live monitor see them), with their events in one transaction, a reply in
 * flight ended first, and a push to any connected socket. The clock is injected (`now` of startServer)
 * and jumps; real time only has to cover a sweep period (1 s).
 */
import { describe, expect, it } from 'vitest';
import { reply, stallStream } from '../support/fakeOpenAI';
import { callOk, connectSocket, eventually, join, joinToWorkspace, nextPush, type TestServer } from '../support/integrationHarness';
import { useScriptedProvider } from './scriptedProvider';
import { STORE_ENGINES } from '../support/testStores';

const LIMIT_MS = 20 * 60_000; // travel-planning's time_limit_minutes
const scripted = useScriptedProvider({ timeoutMs: 30_000, maxAttempts: 1 });

describe.each(STORE_ENGINES)('time limit on the store (%s)', (engine) => {
  /** A server whose clock the test moves. */
  async function serverWithClock() {
    const clock = { now: Date.parse('2026-11-30T09:00:00Z') };
    const t = await scripted.server({ engine, now: () => clock.now });
    return { t, clock };
  }

  const types = async (t: TestServer, sessionId: string) => (await t.server.store.events.listForSession(sessionId)).map((e) => e.type);

  describe('time-limit sweep', () => {
    it('ends an overdue session with no socket connected, once, with its events; leaves the others alone', async () => {
      const { t, clock } = await serverWithClock();
      const start = clock.now;
      // A: in the workspace, then gone. B: submitted, in the survey (may finish late). C: never consented.
      const a = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-a' });
      a.socket.disconnect();
      const b = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-b' });
      await callOk(b.socket, 'artifact:submit', { fields: { itinerary: 'Day 1' }, clientTs: clock.now });
      b.socket.disconnect();
      const c = await join(t, 'travel-planning', { PROLIFIC_PID: 'sweep-c' });
      // D: in the workspace, deadline not reached (consented 10 minutes later).
      clock.now += 10 * 60_000;
      const d = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-d' });
      d.socket.disconnect();

      // One ms before A's deadline nothing happens, even after a sweep.
      clock.now = start + LIMIT_MS - 1;
      await t.server.participants.chat.timeLimitSweep.runOnce();
      expect((await t.server.store.sessions.get(a.sessionId))!.status).toBe('active');

      clock.now = start + LIMIT_MS + 5;
      const ended = await eventually('A timed out by the sweep', async () => {
        const s = (await t.server.store.sessions.get(a.sessionId))!;
        return s.status === 'timed_out' ? s : null;
      });
      expect(ended).toMatchObject({ step: 'complete', endedAt: start + LIMIT_MS + 5 });
      expect((await types(t, a.sessionId)).slice(-4)).toEqual(['connection.closed', 'session.timed_out', 'step.changed', 'session.completed']);
      const completed = (await t.server.store.events.listForSession(a.sessionId)).at(-1)!;
      expect(completed.payload).toEqual({ outcome: 'timed_out', code: 'T0TRV2026' });
      expect(completed.serverTs).toBe(start + LIMIT_MS + 5);

      // More sweeps change nothing; B (survey), C (consent) and D (not yet due) stay active.
      const eventsA = await types(t, a.sessionId);
      await t.server.participants.chat.timeLimitSweep.runOnce();
      await new Promise((r) => setTimeout(r, 1_200));
      expect(await types(t, a.sessionId)).toEqual(eventsA);
      expect((await t.server.store.sessions.get(b.sessionId))).toMatchObject({ status: 'active', step: 'survey' });
      expect((await t.server.store.sessions.get(c.sessionId))).toMatchObject({ status: 'active', step: 'consent' });
      expect((await t.server.store.sessions.get(d.sessionId))).toMatchObject({ status: 'active', step: 'workspace' });

      // D in turn, when its own deadline passes.
      clock.now = start + 10 * 60_000 + LIMIT_MS;
      await eventually('D timed out', async () => (await t.server.store.sessions.get(d.sessionId))!.status === 'timed_out');
      // The participant who comes back sees the timed-out completion page.
      const back = await connectSocket(t, a.token);
      expect(await callOk(back, 'session:state', {})).toMatchObject({ status: 'timed_out', completion: { outcome: 'timed_out' } });
    });

    it('pushes the timed-out state to a connected participant when the clock passes the deadline', async () => {
      const { t, clock } = await serverWithClock();
      const { socket, sessionId } = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-push' });
      const pushed = nextPush(socket, 'session:state', (s) => s.status === 'timed_out', 5_000);
      // The per-socket timer is armed in real time (20 minutes away); only the sweep can notice this jump.
      clock.now += LIMIT_MS + 1;
      expect(await pushed).toMatchObject({ step: 'complete', completion: { code: 'T0TRV2026' } });
      expect((await types(t, sessionId)).filter((x) => x === 'session.timed_out')).toHaveLength(1);
    });

    it('ends a reply in flight before the session: reply.finished (interrupted, not retryable) precedes session.timed_out', async () => {
      const { t, clock } = await serverWithClock();
      const { socket, sessionId } = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-reply' });
      // Two chunks, then the stream goes silent: no more deltas, so only the sweep can end it.
      scripted.fake.script(stallStream(['Day one: ', 'Lisbon.', ' Day two'], 2));
      // Chunks arriving together may come as one delta: wait until both have streamed.
      let streamed = '';
      socket.on('chat:delta', (d) => (streamed += d.text));
      const second = nextPush(socket, 'chat:delta', () => streamed === 'Day one: Lisbon.');
      const failed = nextPush(socket, 'chat:error');
      const timedOut = nextPush(socket, 'session:state', (s) => s.status === 'timed_out');
      const ack = await callOk(socket, 'chat:send', { clientId: 'sweep-reply-1', text: 'Plan it', clientTs: clock.now });
      await second;
      clock.now += LIMIT_MS + 1;
      const error = await failed;
      expect(error).toMatchObject({ replyId: ack.replyId, retryable: false, partial: { status: 'interrupted', text: 'Day one: Lisbon.' } });
      const state = await timedOut;
      expect(state.replyInFlight).toBeNull();
      expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'interrupted', interrupted: true, error: { kind: 'timeout', retryable: false } });
      const seq = await types(t, sessionId);
      expect(seq.indexOf('reply.finished')).toBeGreaterThan(-1);
      expect(seq.indexOf('reply.finished')).toBeLessThan(seq.indexOf('session.timed_out'));
      expect(t.server.participants.chat.repliesInFlight).toBe(0);
      expect((await t.server.store.replyProgress.count())).toBe(0);
    });

    it('a reply still streaming at the deadline is cut at its next delta', async () => {
      const { t, clock } = await serverWithClock();
      const { socket, sessionId } = await joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: 'sweep-delta' });
      const full = Array.from({ length: 200 }, (_, i) => ` w${i}`).join('');
      scripted.fake.script(reply(full, { tokensPerSecond: 40 }));
      const first = nextPush(socket, 'chat:delta');
      const failed = nextPush(socket, 'chat:error');
      const ack = await callOk(socket, 'chat:send', { clientId: 'sweep-delta-1', text: 'Long please', clientTs: clock.now });
      await first;
      clock.now += LIMIT_MS;
      const error = await failed;
      expect(error.partial!.status).toBe('interrupted');
      expect(error.partial!.text.length).toBeLessThan(full.length);
      expect(full.startsWith(error.partial!.text)).toBe(true);
      await eventually('session timed out', async () => (await t.server.store.sessions.get(sessionId))!.status === 'timed_out');
      expect((await t.server.store.messages.get(ack.replyId!))!.status).toBe('interrupted');
    });
  });
});
