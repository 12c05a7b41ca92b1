/**
 * Ways a chat turn could leave a session stuck, each against a real server, real SQLite file, real socket.io
 * clients and the real `openai` client talking to the local fake OpenAI server: a provider call that never
 * answers, one that ignores its abort signal, a stream that stalls, a socket that goes away mid-stream, Stop
 * racing the end of a reply, Retry while busy — and the crash checkpoint written while a reply streams.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hang, reply, stallStream } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import type { LlmProvider } from '../../lib/llm/provider';
import { checkpointStats } from '../../server/services/replyCheckpoint';
import { call, callOk, connectSocket, joinToWorkspace, nextPush, type TestServer } from '../support/integrationHarness';
import { useScriptedProvider } from './scriptedProvider';

const scripted = useScriptedProvider({ backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 });
let participant = 0;

const workspaceSession = (t: TestServer) => joinToWorkspace(t, 'travel-planning', { PROLIFIC_PID: `hard-${++participant}` });

const clientId = () => `c${Math.random().toString(36).slice(2, 12)}`;
const words = (n: number) => Array.from({ length: n }, (_, i) => ` w${i}`).join('');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The real OpenAI provider, but deaf to Stop/watchdog: it never sees the abort signal (a misbehaving provider). */
function deafProvider(timeoutMs: number): LlmProvider {
  const real = new OpenAIProvider({ baseURL: scripted.fake.url, apiKey: 'k', timeoutMs, maxAttempts: 1 });
  return {
    name: 'deaf-to-abort',
    complete: ({ signal: _ignored, ...request }) => real.complete(request),
  };
}

describe('a reply that never ends', () => {
  it('the watchdog ends a provider call that never answers; the error is retryable and the session takes new messages', async () => {
    const t = await scripted.server({ replyTimeoutMs: 400, openai: { timeoutMs: 30_000, maxAttempts: 1 } });
    const { socket, sessionId } = await workspaceSession(t);
    scripted.fake.script(hang());
    const failed = nextPush(socket, 'chat:error');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Hello?', clientTs: Date.now() });
    const error = await failed;
    expect(error).toMatchObject({ replyId: ack.replyId, retryable: true, partial: { status: 'error', text: '' } });
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'error', error: { kind: 'timeout' } });
    expect(t.server.participants.chat.repliesInFlight).toBe(0);

    const done = nextPush(socket, 'chat:done');
    // Whether or not the first request got out before the watchdog, the retry must get the reply.
    scripted.fake.reset();
    scripted.fake.script(reply('Here now.'));
    await callOk(socket, 'chat:retry', { clientTs: Date.now() });
    expect((await done).message).toMatchObject({ status: 'complete', text: 'Here now.' });
    const types = (await t.server.store.events.listForSession(sessionId)).map((e) => e.type);
    expect(types.filter((x) => x === 'reply.started')).toHaveLength(2);
    expect(types.filter((x) => x === 'reply.finished')).toHaveLength(2);
  });

  it('a stream that stalls mid-reply is ended by the watchdog and stored as interrupted with the text so far', async () => {
    const t = await scripted.server({ replyTimeoutMs: 600, openai: { timeoutMs: 30_000, maxAttempts: 1 } });
    const { socket } = await workspaceSession(t);
    scripted.fake.script(stallStream(['Part one,', ' part two,', ' part three'], 2));
    const failed = nextPush(socket, 'chat:error');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Go on', clientTs: Date.now() });
    const error = await failed;
    expect(error.partial).toMatchObject({ status: 'interrupted', text: 'Part one, part two,' });
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'interrupted', interrupted: true, error: { kind: 'timeout' } });
    expect((await callOk(socket, 'session:state', {})).canRetry).toBe(true);
  });

  it('a provider that ignores its abort signal cannot keep the session busy: the watchdog gives up on it after a grace period', async () => {
    const t = await scripted.server({ replyTimeoutMs: 300, providerFactory: () => deafProvider(60_000) });
    const { socket } = await workspaceSession(t);
    scripted.fake.script(hang());
    const failed = nextPush(socket, 'chat:error', undefined, 10_000);
    const sentAt = Date.now();
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Anyone?', clientTs: Date.now() });
    const error = await failed;
    // Before: the reply stayed in flight until the provider's own 60 s timeout and every send got "busy".
    expect(Date.now() - sentAt).toBeLessThan(8_000);
    expect(error).toMatchObject({ replyId: ack.replyId, retryable: true, partial: { status: 'error' } });
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'error', finishReason: 'error', error: { kind: 'timeout' } });
    const state = await callOk(socket, 'session:state', {});
    expect(state.replyInFlight).toBeNull();
    expect(state.canRetry).toBe(true);
  });

  it('Stop ends a reply even when the provider ignores the abort: what had streamed is stored as stopped, later text is dropped', async () => {
    const t = await scripted.server({ providerFactory: () => deafProvider(60_000) });
    const { socket, sessionId } = await workspaceSession(t);
    scripted.fake.script(stallStream(['Alpha', ' beta', ' gamma'], 2));
    const deltas: string[] = [];
    socket.on('chat:delta', (d) => deltas.push(d.text));
    // Chunks arriving together may come as one delta: wait until both have streamed.
    const secondDelta = nextPush(socket, 'chat:delta', () => deltas.join('') === 'Alpha beta');
    const done = nextPush(socket, 'chat:done', undefined, 10_000);
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Greek letters', clientTs: Date.now() });
    await secondDelta;
    expect(await callOk(socket, 'chat:stop', { replyId: ack.replyId!, clientTs: Date.now() })).toEqual({ stopped: true });
    const { message } = await done;
    expect(message).toMatchObject({ id: ack.replyId, status: 'stopped', text: 'Alpha beta' });
    expect(deltas.join('')).toBe('Alpha beta');
    // Not busy any more: a new message is answered (by a fresh provider call).
    scripted.fake.script(reply('Next answer.'));
    const next = nextPush(socket, 'chat:done', (d) => d.message.text === 'Next answer.');
    await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Next', clientTs: Date.now() });
    await next;
    expect((await t.server.store.events.listForSession(sessionId)).filter((e) => e.type === 'chat.stop_requested')).toHaveLength(1);
  });

  it('server shutdown does not wait forever for a provider that ignores its abort', async () => {
    const t = await scripted.server({ providerFactory: () => deafProvider(60_000) });
    const { socket, sessionId } = await workspaceSession(t);
    scripted.fake.script(hang());
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Hello', clientTs: Date.now() });
    await sleep(100);
    const started = Date.now();
    scripted.release(t);
    await t.server.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    const store = await openStore({ dataDir: t.dataDir });
    try {
      expect((await store.messages.get(ack.replyId!))).toMatchObject({ status: 'error', error: { kind: 'network', retryable: true } });
      const finished = (await store.events.listForSession(sessionId)).filter((e) => e.type === 'reply.finished');
      expect(finished.map((e) => (e.payload as { replyId: string }).replyId)).toEqual([ack.replyId]);
    } finally {
      await store.close();
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});

describe('connection and timing races', () => {
  it('a socket that disconnects mid-stream and never returns does not strand the reply: it is stored complete', async () => {
    const t = await scripted.server();
    const { socket, sessionId, token } = await workspaceSession(t);
    const full = words(40);
    scripted.fake.script(reply(full, { tokensPerSecond: 60 }));
    const firstDelta = nextPush(socket, 'chat:delta');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Count', clientTs: Date.now() });
    await firstDelta;
    socket.disconnect();
    await t.server.participants.chat.settled(sessionId);
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'complete', text: full });
    expect(t.server.participants.chat.repliesInFlight).toBe(0);
    const back = await connectSocket(t, token);
    const state = await callOk(back, 'session:state', {});
    expect(state.replyInFlight).toBeNull();
    expect(state.canRetry).toBe(false);
    expect(state.messages.map((m) => `${m.role}:${m.status}`)).toEqual(['user:complete', 'assistant:complete']);
  });

  it('Stop racing the end of a reply: either it stops it or it is a no-op; one outcome stored, never busy afterwards', async () => {
    const t = await scripted.server();
    const { socket, sessionId } = await workspaceSession(t);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      scripted.fake.script(reply(`Short answer ${i}.`, { chunks: 3 }));
      const ended = new Promise<string>((resolve) => {
        socket.once('chat:done', (d) => resolve(d.message.status));
      });
      const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: `Question ${i}`, clientTs: Date.now() });
      // Stop sent at once and again after a short pause: the reply may or may not be over by then.
      const [a, b] = await Promise.all([
        callOk(socket, 'chat:stop', { replyId: ack.replyId!, clientTs: Date.now() }),
        sleep(i).then(() => callOk(socket, 'chat:stop', { replyId: ack.replyId!, clientTs: Date.now() })),
      ]);
      const status = await ended;
      await t.server.participants.chat.settled(sessionId);
      const stored = (await t.server.store.messages.get(ack.replyId!))!;
      expect(stored.status).toBe(status);
      if (a.stopped || b.stopped) expect(['stopped', 'complete']).toContain(status);
      else expect(status).toBe('complete');
      outcomes.push(status);
    }
    expect(t.server.participants.chat.repliesInFlight).toBe(0);
    const events = (await t.server.store.events.listForSession(sessionId));
    expect(events.filter((e) => e.type === 'reply.started')).toHaveLength(6);
    expect(events.filter((e) => e.type === 'reply.finished')).toHaveLength(6);
    // A Stop after the reply was stored is a no-op and writes nothing.
    const before = (await t.server.store.events.count(sessionId));
    const lastReply = (await t.server.store.messages.listForSession(sessionId)).at(-1)!;
    expect(await callOk(socket, 'chat:stop', { replyId: lastReply.id, clientTs: Date.now() })).toEqual({ stopped: false });
    expect((await t.server.store.events.count(sessionId))).toBe(before);
    expect(outcomes).toHaveLength(6);
  });

  it('Retry while a reply streams is refused as busy and writes nothing; afterwards there is nothing to retry', async () => {
    const t = await scripted.server();
    const { socket, sessionId } = await workspaceSession(t);
    scripted.fake.script(reply(words(30), { tokensPerSecond: 40 }));
    const firstDelta = nextPush(socket, 'chat:delta');
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Talk', clientTs: Date.now() });
    await firstDelta;
    const before = (await t.server.store.events.count(sessionId));
    expect(await call(socket, 'chat:retry', { clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect((await t.server.store.events.count(sessionId))).toBe(before);
    expect((await done).message.status).toBe('complete');
    expect(await call(socket, 'chat:retry', { clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(scripted.fake.requests).toHaveLength(1);
  });
});

describe('crash checkpoint while streaming', () => {
  it('keeps the streamed text in reply_progress (coalesced, a few writes) and removes it when the reply is stored', async () => {
    const t = await scripted.server();
    const { socket } = await workspaceSession(t);
    const full = words(60);
    scripted.fake.script(reply(full, { tokensPerSecond: 40 })); // ~1.5 s
    let received = '';
    let deltas = 0;
    socket.on('chat:delta', (d) => {
      received += d.text;
      deltas++;
    });
    const done = nextPush(socket, 'chat:done');
    const writesBefore = checkpointStats.writes;
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Count slowly', clientTs: Date.now() });
    await nextPush(socket, 'chat:delta');
    await sleep(900);
    const checkpoint = (await t.server.store.replyProgress.get(ack.replyId!));
    expect(checkpoint).toBeDefined();
    expect(checkpoint!.text.length).toBeGreaterThan(0);
    expect(received.startsWith(checkpoint!.text)).toBe(true);
    expect(checkpoint!.provider).toBe('openai-compatible');

    expect((await done).message.text).toBe(full);
    expect((await t.server.store.replyProgress.get(ack.replyId!))).toBeUndefined();
    expect((await t.server.store.replyProgress.count())).toBe(0);
    const writes = checkpointStats.writes - writesBefore;
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThan(deltas / 4); // one upsert per ~500 ms, not one per token
  });

  it('a reply that finishes quickly writes no checkpoint at all', async () => {
    const t = await scripted.server();
    const { socket } = await workspaceSession(t);
    scripted.fake.script(reply('Quick answer.'));
    const done = nextPush(socket, 'chat:done');
    const writesBefore = checkpointStats.writes;
    await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Quick?', clientTs: Date.now() });
    await done;
    expect(checkpointStats.writes - writesBefore).toBe(0);
  });
});
