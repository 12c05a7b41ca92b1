/**
 * How streamed text reaches the participant: fragments that arrive in the same event-loop turn go out as
 * one chat:delta (fewer socket writes when many replies stream at once), every fragment arrives before
 * chat:done, and a reconnecting client's snapshot holds exactly the text pushed so far.
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
  return { socket, token: j.token };
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
});
