/**
 * U+0000 (NUL) is dropped at the boundary, on both engines alike (server/services/textBoundary.ts): a PID, a
 * chat message or a model reply holding one no longer makes PostgreSQL answer 500 / `internal` (the audit's
 * cases), and the researcher's session list takes a filter holding one. Real server and store, real socket.io
 * client, the real `openai` client against a local OpenAI-compatible server.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { STORE_ENGINES } from '../support/testStores';
import { callOk, connectSocket, nextPush, postJson, ROOT, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { cleanTextDeep } from '../../server/services/textBoundary';

describe('cleanTextDeep', () => {
  it('drops NUL from every string and key, and leaves other values and unchanged objects alone', () => {
    expect(cleanTextDeep({ t: 'a\ud800b\udc00c\ud83d\ude00' })).toEqual({ t: 'a\ufffdb\ufffdc😀' });
    const same = { a: 'x', b: [1, true, null] };
    expect(cleanTextDeep(same)).toBe(same);
    expect(cleanTextDeep({ 'k\u0000ey': ['a\u0000b', 3, { c: '\u0000' }] })).toEqual({ key: ['ab', 3, { c: '' }] });
  });
});

describe.each(STORE_ENGINES)('NUL in text (%s)', (engine) => {
  let fake: FakeOpenAI;
  let t: TestServer;
  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    fake = await startFakeOpenAI({ model: 'gpt-4o-mini-2024-07-18', tokensPerSecond: 0 });
    t = await startTestServer({
      engine,
      studiesDir: path.join(ROOT, 'studies'),
      openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('joins with a PID holding NUL, stores a message and a model reply holding NUL without it', async () => {
    const res = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { PROLIFIC_PID: `nul\u0000-${engine}`, SESSION_ID: 'visit\u00001' } });
    expect(res.status).toBe(200);
    const joined = res.body.data as { token: string; sessionId: string };
    expect((await t.server.store.identities.get(joined.sessionId))?.platformUserId).toBe(`nul-${engine}`);

    const socket = await connectSocket(t, joined.token);
    await toWorkspace(socket);
    fake.script(reply(['Lisbon\u0000 ', 'is lovely.\u0000'], { tokensPerSecond: 0 }));
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: `nul-${engine}`, text: 'Where\u0000 to go?', clientTs: Date.now() });
    const finished = await done;
    expect(finished.message.text).toBe('Lisbon is lovely.');
    const messages = await t.server.store.messages.listForSession(joined.sessionId);
    expect(messages.map((m) => [m.role, m.status, m.text])).toEqual([
      ['user', 'complete', 'Where to go?'],
      ['assistant', 'complete', 'Lisbon is lovely.'],
    ]);
    expect(await t.server.store.replyProgress.get(messages[1]!.id)).toBeUndefined();
  });

  it('saves a draft and a message holding a lone surrogate (a broken paste), with U+FFFD in its place', async () => {
    const res = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { PROLIFIC_PID: `lone-surrogate-${engine}` } });
    const joined = res.body.data as { token: string; sessionId: string };
    const socket = await connectSocket(t, joined.token);
    await toWorkspace(socket);
    const broken = 'Day 1: \ud83d Alfama, \ude00 Belém, 😀';
    const clean = 'Day 1: \ufffd Alfama, \ufffd Belém, 😀';
    expect(await callOk(socket, 'artifact:draft', { fields: { itinerary: broken }, clientTs: Date.now() })).toMatchObject({ version: 1 });
    // The same text again is the same draft: nothing new is written.
    expect(await callOk(socket, 'artifact:draft', { fields: { itinerary: broken }, clientTs: Date.now() })).toMatchObject({ version: 1 });
    expect((await t.server.store.artifacts.getDraft(joined.sessionId))?.fields).toEqual({ itinerary: clean });
    fake.script(reply(['Fine.'], { tokensPerSecond: 0 }));
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: `lone-${engine}`, text: broken, clientTs: Date.now() });
    await done;
    expect((await t.server.store.messages.listForSession(joined.sessionId))[0]!.text).toBe(clean);
  });

  it('answers the session list with a filter holding NUL', async () => {
    const admin = await loginAdmin(t.server.url);
    const res = await admin.get('/api/admin/studies/travel-planning/session-list?condition=a%00b');
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBe(200);
  });
});
