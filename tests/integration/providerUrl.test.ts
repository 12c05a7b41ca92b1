/**
 * A provider URL configured with credentials (user:pass@…, ?api-key=…) is never stored: the messages
 * table and the reply.finished event hold only scheme, host, port and path. Real server, real SQLite
 * file, real socket.io client; the real `openai` client pointed at the local fake server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { DATABASE_FILE_NAME } from '../../lib/storage';

const SECRET = 's3cretPW';
let fake: FakeOpenAI;
let t: TestServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ tokensPerSecond: 0 });
  const port = new URL(fake.url).port;
  const baseURL = `http://admin:${SECRET}@127.0.0.1:${port}/v1?api-key=sk-${SECRET}#${SECRET}`;
  t = await startTestServer({ openai: { baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 2_000 } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('provider URL provenance', () => {
  it('stores the sanitised provider URL with the reply, never the credentials in it', async () => {
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'provider-url-1' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    // fetch refuses a URL with userinfo, so the reply fails; its provenance is stored all the same.
    const ended = nextPush(socket, 'chat:error');
    const ack = await callOk(socket, 'chat:send', { clientId: 'c-provider-url-1', text: 'Hello', clientTs: Date.now() });
    await ended;
    await t.server.participants.chat.settled(j.sessionId);

    const assistant = (await t.server.store.messages.listForSession(j.sessionId)).find((m) => m.id === ack.replyId);
    expect(assistant?.providerUrl).toBe(fake.url);
    const finished = (await t.server.store.events.listForSession(j.sessionId)).find((e) => e.type === 'reply.finished');
    expect(finished?.payload).toMatchObject({ replyId: ack.replyId, providerUrl: fake.url });

    // Nothing in the database files (main file and write-ahead log) holds the secret.
    const dbFile = path.join(t.dataDir, DATABASE_FILE_NAME);
    const base = path.basename(dbFile);
    const files = fs.readdirSync(path.dirname(dbFile)).filter((f) => f.startsWith(base));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      expect(fs.readFileSync(path.join(path.dirname(dbFile), name)).includes(SECRET), name).toBe(false);
    }
  });
});
