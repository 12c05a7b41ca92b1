/**
 * Chat end to end against a real server, real SQLite file, real socket.io clients, and the real `openai`
 * client pointed at a local OpenAI-compatible server (tests/support/fakeOpenAI.ts) streaming replies.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cutStream, httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { call, callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import type { StoreEngine } from '../../lib/storage';
import { STORE_ENGINES } from '../support/testStores';

const MODEL = 'gpt-4o-mini-2024-07-18';

// Provider calls run on the event loop by default; PROVIDER_THREAD=on moves them to a worker thread
// (lib/llm/providerThread). Every chat behaviour must hold both ways.
// On every store engine (the event-loop mode; the thread mode does not touch storage differently).
describe.each([
  { mode: 'on the event loop', providerThread: false, engine: 'sqlite' as StoreEngine },
  { mode: 'on the provider thread', providerThread: true, engine: 'sqlite' as StoreEngine },
  ...STORE_ENGINES.filter((e) => e !== 'sqlite').map((engine) => ({ mode: 'on the event loop', providerThread: false, engine })),
])('chat, provider calls $mode, store $engine', ({ providerThread, engine }) => {
  let fake: FakeOpenAI;
  let t: TestServer;
  let participant = 0;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ model: MODEL, tokensPerSecond: 0 });
    t = await startTestServer({ engine, providerThread, openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 } });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  afterEach(() => fake.reset());

  async function workspaceSession() {
    const j = await join(t, 'visualization', { PROLIFIC_PID: `chat-${++participant}` });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    return { ...j, socket };
  }

  const clientId = () => `c${Math.random().toString(36).slice(2, 12)}`;

  it('streams a reply and stores it with provider, exact model, params, usage, tokens and timings', async () => {
    const { socket, sessionId } = await workspaceSession();
    fake.script(reply('Plot **hours** against score.', { chunks: 4, tokensPerSecond: 200 }));
    const deltas: string[] = [];
    socket.on('chat:delta', (d) => deltas.push(d.text));
    const done = nextPush(socket, 'chat:done');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'How do I start?', clientTs: 1_700_000_000_000 });
    expect(ack.duplicate).toBe(false);
    const { message } = await done;
    expect(message).toMatchObject({ id: ack.replyId, role: 'assistant', status: 'complete', text: 'Plot **hours** against score.', replyTo: ack.message.id });
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.join('')).toBe(message.text);

    const rows = (await t.server.store.messages.listForSession(sessionId));
    expect(rows).toHaveLength(2);
    const [user, assistant] = rows;
    expect(user).toMatchObject({ role: 'user', text: 'How do I start?', tokens: encode('How do I start?').length, status: 'complete' });
    expect(assistant).toMatchObject({
      provider: 'openai-compatible',
      model: MODEL,
      requestedModel: 'gpt-4o-mini',
      params: { temperature: 0.7, max_tokens: 1024 },
      finishReason: 'stop',
      interrupted: false,
      attempts: 1,
      tokens: encode('Plot **hours** against score.').length, // o200k_base, counted independently
    });
    expect(assistant!.usage).toMatchObject({ completionTokens: assistant!.tokens });
    expect(assistant!.usage!.promptTokens).toBeGreaterThan(50);
    expect(assistant!.ttftMs).not.toBeNull();
    expect(assistant!.durationMs).toBeGreaterThanOrEqual(assistant!.ttftMs!);

    // The model saw the condition's system prompt with the task instructions, then the participant's message.
    const sent = fake.requests.at(-1)!.body;
    expect(sent.model).toBe('gpt-4o-mini');
    expect(sent.stream).toBe(true);
    expect(sent.messages[0].role).toBe('system');
    expect(sent.messages[0].content).toContain('study_habits.csv');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'How do I start?' });

    const events = (await t.server.store.events.listForSession(sessionId));
    const userEvent = events.find((e) => e.type === 'message.user')!;
    expect(userEvent.clientTs).toBe(1_700_000_000_000);
    expect(events.map((e) => e.type).slice(-3)).toEqual(['message.user', 'reply.started', 'reply.finished']);
  });

  it('stores a resent message once and returns the stored ack', async () => {
    const { socket, sessionId } = await workspaceSession();
    const id = clientId();
    const payload = { clientId: id, text: 'Only once please', clientTs: Date.now() };
    const done = nextPush(socket, 'chat:done');
    // Two sends at once (a retry racing the original) and one after: one row, one event.
    const [a, b] = await Promise.all([callOk(socket, 'chat:send', payload), callOk(socket, 'chat:send', payload)]);
    await done;
    const c = await callOk(socket, 'chat:send', payload);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    expect(c.duplicate).toBe(true);
    expect(b.message.id).toBe(a.message.id);
    expect(c.message.id).toBe(a.message.id);
    expect(c.replyId).toBe(a.replyId);
    const users = (await t.server.store.messages.listForSession(sessionId)).filter((m) => m.role === 'user');
    expect(users).toHaveLength(1);
    const events = (await t.server.store.events.listForSession(sessionId));
    expect(events.filter((e) => e.type === 'message.user')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'reply.started')).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('stores a stream that dies mid-reply as interrupted, and Retry completes the turn', async () => {
    const { socket, sessionId } = await workspaceSession();
    fake.script(cutStream('The first part of an answer that never ends', 3), reply('A whole answer.'));
    const failed = nextPush(socket, 'chat:error');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Explain the data', clientTs: Date.now() });
    const error = await failed;
    expect(error.replyId).toBe(ack.replyId);
    expect(error.retryable).toBe(true);
    expect(error.partial).toMatchObject({ status: 'interrupted' });
    expect(error.partial!.text.length).toBeGreaterThan(0);
    expect(error.message).toMatch(/Retry/);

    const stored = (await t.server.store.messages.get(ack.replyId!))!;
    expect(stored).toMatchObject({ status: 'interrupted', interrupted: true, text: error.partial!.text });
    expect(stored.error).toMatchObject({ kind: 'stream' });

    expect((await callOk(socket, 'session:state', {})).canRetry).toBe(true);
    // While nothing is in flight the participant can retry; the model does not see the broken reply.
    const done = nextPush(socket, 'chat:done');
    const retry = await callOk(socket, 'chat:retry', { clientTs: Date.now() });
    const { message } = await done;
    expect(message).toMatchObject({ id: retry.replyId, status: 'complete', text: 'A whole answer.', replyTo: ack.message.id });
    const lastRequest = fake.requests.at(-1)!.body;
    expect(lastRequest.messages.filter((m: { role: string }) => m.role === 'assistant')).toHaveLength(0);
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'user', content: 'Explain the data' });

    // Nothing left to retry now.
    const again = await call(socket, 'chat:retry', { clientTs: Date.now() });
    expect(again).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const state = await callOk(socket, 'session:state', {});
    expect(state.messages.map((m) => `${m.role}:${m.status}`)).toEqual(['user:complete', 'assistant:interrupted', 'assistant:complete']);
    expect(state.replyInFlight).toBeNull();
    expect(state.canRetry).toBe(false);
    expect((await t.server.store.events.listForSession(sessionId)).filter((e) => e.type === 'reply.finished')).toHaveLength(2);
  });

  it('completes the turn when a 429 is followed by success', async () => {
    const { socket, sessionId } = await workspaceSession();
    fake.script(httpError(429, { message: 'Rate limit reached' }), reply('Worth the wait.'));
    const done = nextPush(socket, 'chat:done');
    let errors = 0;
    socket.on('chat:error', () => errors++);
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Hello?', clientTs: Date.now() });
    const { message } = await done;
    expect(message).toMatchObject({ id: ack.replyId, status: 'complete', text: 'Worth the wait.' });
    expect(errors).toBe(0);
    expect(fake.requests).toHaveLength(2);
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ attempts: 2, status: 'complete', error: null });
    expect((await t.server.store.messages.listForSession(sessionId))).toHaveLength(2);
  });

  it('reports persistent provider failure as a retryable error; the session is not stuck', async () => {
    const { socket } = await workspaceSession();
    fake.script(httpError(500), httpError(500), httpError(500), reply('Back again.'));
    const failed = nextPush(socket, 'chat:error');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Anyone there?', clientTs: Date.now() });
    const error = await failed;
    expect(error).toMatchObject({ replyId: ack.replyId, retryable: true, partial: { status: 'error', text: '' } });
    // A new message is accepted right away (no reply in flight).
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Trying again', clientTs: Date.now() });
    expect((await done).message.text).toBe('Back again.');
  });

  it('Stop aborts the reply in flight and stores what arrived as stopped; one reply at a time', async () => {
    const { socket, sessionId } = await workspaceSession();
    fake.script(reply('word '.repeat(400), { tokensPerSecond: 40 }));
    const firstDelta = nextPush(socket, 'chat:delta');
    const done = nextPush(socket, 'chat:done');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Write a lot', clientTs: Date.now() });
    await firstDelta;
    const busy = await call(socket, 'chat:send', { clientId: clientId(), text: 'And another', clientTs: Date.now() });
    expect(busy).toMatchObject({ ok: false, error: { code: 'busy' } });
    const state = await callOk(socket, 'session:state', {});
    expect(state.replyInFlight).toMatchObject({ replyId: ack.replyId });
    expect(await callOk(socket, 'chat:stop', { replyId: ack.replyId!, clientTs: Date.now() })).toEqual({ stopped: true });
    const { message } = await done;
    expect(message.status).toBe('stopped');
    expect(message.text.length).toBeGreaterThan(0);
    expect(message.text.length).toBeLessThan('word '.repeat(400).length);
    expect((await t.server.store.messages.get(ack.replyId!))).toMatchObject({ status: 'stopped', finishReason: 'aborted', interrupted: false });
    expect((await t.server.store.messages.listForSession(sessionId)).filter((m) => m.role === 'user')).toHaveLength(1);
    expect(await callOk(socket, 'chat:stop', { clientTs: Date.now() })).toEqual({ stopped: false });
  });

  it('refuses a reused message id with different text (conflict) and keeps the stored message', async () => {
    const { socket, sessionId } = await workspaceSession();
    const id = clientId();
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: id, text: 'The first words', clientTs: Date.now() });
    await done;
    const eventsBefore = (await t.server.store.events.count(sessionId));
    const reused = await call(socket, 'chat:send', { clientId: id, text: 'Other words', clientTs: Date.now() });
    expect(reused).toMatchObject({ ok: false, error: { code: 'conflict', field: 'clientId' } });
    expect(!reused.ok && reused.error.message).toMatch(/already used for a different message/);
    expect((await t.server.store.events.count(sessionId))).toBe(eventsBefore);
    const users = (await t.server.store.messages.listForSession(sessionId)).filter((m) => m.role === 'user');
    expect(users.map((m) => m.text)).toEqual(['The first words']);
  });

  it('refuses an oversized message with a message and stores nothing', async () => {
    const { socket, sessionId } = await workspaceSession();
    const before = (await t.server.store.events.count(sessionId));
    const reply = await call(socket, 'chat:send', { clientId: clientId(), text: 'x'.repeat(4001), clientTs: Date.now() });
    expect(reply).toMatchObject({ ok: false, error: { code: 'too_large', field: 'text' } });
    expect(!reply.ok && reply.error.message).toMatch(/at most 4000/);
    expect((await t.server.store.events.count(sessionId))).toBe(before);
    expect((await t.server.store.messages.listForSession(sessionId))).toHaveLength(0);
  });

  it('submitting the artifact during a reply stops the reply first, then moves to the survey', async () => {
    const { socket, sessionId, token } = await workspaceSession();
    fake.script(reply('long '.repeat(300), { tokensPerSecond: 50 }));
    const firstDelta = nextPush(socket, 'chat:delta');
    const done = nextPush(socket, 'chat:done');
    const ack = await callOk(socket, 'chat:send', { clientId: clientId(), text: 'Talk a lot', clientTs: Date.now() });
    await firstDelta;
    const upload = await fetch(`${t.server.url}/api/session/upload?field=plot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/gif' },
      body: new Uint8Array(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')),
    }).then((r) => r.json());
    expect(upload.ok).toBe(true);
    const fields = { hypothesis: 'h', code: 'c', plot: upload.data.uploadId, interpretation: 'i' };
    const state = await callOk(socket, 'artifact:submit', { fields, clientTs: Date.now() });
    expect(state.step).toBe('survey');
    expect((await done).message).toMatchObject({ id: ack.replyId, status: 'stopped' });
    const types = (await t.server.store.events.listForSession(sessionId)).map((e) => e.type);
    expect(types.indexOf('reply.finished')).toBeLessThan(types.indexOf('artifact.submitted'));
    const late = await call(socket, 'chat:send', { clientId: clientId(), text: 'One more', clientTs: Date.now() });
    expect(late).toMatchObject({ ok: false, error: { code: 'wrong_step' } });
  });
});
