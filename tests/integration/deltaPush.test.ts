/**
 * How streamed text reaches the participant: fragments that arrive in the same event-loop turn go out as
 * one chat:delta (fewer socket writes when many replies stream at once), every fragment arrives before
 * chat:done, a reconnecting client's snapshot holds exactly the text pushed so far, and every open tab gets them
 * (server/socket/sessionPush.ts: a direct emit for one tab, the room for more).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../../lib/llm/provider';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';

const open: TestServer[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const result = (text: string): CompletionResult => ({
  text,
  usage: null,
  provider: 'scripted',
  model: 'scripted-1',
  providerUrl: null,
  systemFingerprint: null,
  finishReason: 'stop',
  ttftMs: 0,
  latencyMs: 1,
  attempts: 1,
  interrupted: false,
});

/** Streams `bursts`: the fragments of one burst in the same turn, a timer tick between bursts; `gate` holds the end. */
function burstProvider(bursts: string[][], gate: Promise<void> = Promise.resolve()): LlmProvider {
  return {
    name: 'scripted',
    async complete(request: CompletionRequest) {
      for (const burst of bursts) {
        for (const fragment of burst) request.onDelta?.(fragment);
        await new Promise((r) => setTimeout(r, 5));
      }
      await gate;
      return result(bursts.flat().join(''));
    },
  };
}

async function workspace(t: TestServer) {
  const j = await join(t, 'travel-planning', { PROLIFIC_PID: `delta-${Math.random().toString(36).slice(2, 10)}`, SESSION_ID: 'visit-1' });
  const socket = await connectSocket(t, j.token);
  await toWorkspace(socket);
  return { socket, token: j.token, sessionId: j.sessionId };
}

describe('chat:delta pushes', () => {
  it('send one delta per burst of fragments, all of them before chat:done', async () => {
    const bursts = [Array.from({ length: 40 }, (_, i) => ` a${i}`), [' b0', ' b1'], [' c0']];
    const t = await startTestServer({ providerFactory: () => burstProvider(bursts) });
    open.push(t);
    const { socket } = await workspace(t);
    const received: string[] = [];
    let doneAfter = -1;
    socket.on('chat:delta', (d) => received.push(d.text));
    const done = nextPush(socket, 'chat:done');
    void done.then(() => (doneAfter = received.length));
    await callOk(socket, 'chat:send', { clientId: 'delta-burst-1', text: 'Go', clientTs: Date.now() });
    const { message } = await done;
    expect(received).toEqual(bursts.map((b) => b.join('')));
    expect(doneAfter).toBe(bursts.length);
    expect(message.text).toBe(bursts.flat().join(''));
  });

  it('give a reconnecting client exactly the text pushed so far, and the rest as deltas', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = await startTestServer({ providerFactory: () => burstProvider([['Day one: ', 'Lisbon.'], [' Day two: Porto.']], gate) });
    open.push(t);
    const { socket, token } = await workspace(t);
    const bothBursts = nextPush(socket, 'chat:delta', (d) => d.text === ' Day two: Porto.');
    await callOk(socket, 'chat:send', { clientId: 'delta-resume-1', text: 'Plan', clientTs: Date.now() });
    await bothBursts;

    const second = await connectSocket(t, token);
    const state = await callOk(second, 'session:state', {});
    expect(state.replyInFlight?.text).toBe('Day one: Lisbon. Day two: Porto.');
    const done = nextPush(second, 'chat:done');
    release();
    expect((await done).message.text).toBe('Day one: Lisbon. Day two: Porto.');
  });

  it('reach every tab of the session as tabs open and close (one tab: a direct emit; two: the room)', async () => {
    const gates = [0, 1, 2].map(() => {
      let open!: () => void;
      return { passed: new Promise<void>((r) => (open = r)), open: () => open() };
    });
    const provider: LlmProvider = {
      name: 'scripted',
      async complete(request: CompletionRequest) {
        for (const [i, text] of ['Alone. ', 'Both. ', 'Second.'].entries()) {
          await gates[i]!.passed;
          request.onDelta?.(text);
        }
        return result('Alone. Both. Second.');
      },
    };
    const t = await startTestServer({ providerFactory: () => provider });
    open.push(t);
    const { socket: first, token, sessionId } = await workspace(t);
    const seenBy = { first: [] as string[], second: [] as string[] };
    first.on('chat:delta', (d) => seenBy.first.push(d.text));
    await callOk(first, 'chat:send', { clientId: 'delta-tabs-1', text: 'Go', clientTs: Date.now() });
    let pushed = nextPush(first, 'chat:delta', (d) => d.text === 'Alone. ');
    gates[0]!.open();
    await pushed;

    const second = await connectSocket(t, token);
    second.on('chat:delta', (d) => seenBy.second.push(d.text));
    await callOk(second, 'session:state', {});
    const bothGot = [nextPush(first, 'chat:delta', (d) => d.text === 'Both. '), nextPush(second, 'chat:delta', (d) => d.text === 'Both. ')];
    gates[1]!.open();
    await Promise.all(bothGot);

    first.disconnect();
    // The server has seen the close when the first tab's connection.closed is in the trajectory.
    await expect.poll(async () => (await t.server.store.events.listForSession(sessionId)).some((e) => e.type === 'connection.closed'), { timeout: 5_000 }).toBe(true);
    const done = nextPush(second, 'chat:done');
    gates[2]!.open();
    expect((await done).message.text).toBe('Alone. Both. Second.');
    expect(seenBy).toEqual({ first: ['Alone. ', 'Both. '], second: ['Both. ', 'Second.'] });
  });
});
