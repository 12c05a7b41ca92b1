/**
 * Per-session chat budget (study option chat.max_user_messages): beyond it chat:send answers
 * limit_reached and stores nothing. Real server, real SQLite file, real socket.io client; the offline
 * assistant answers (no network).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { call, callOk, connectSocket, join, nextPush, ROOT, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

describe.each(STORE_ENGINES)('chat budget on the store (%s)', (engine) => {
  const LIMIT = 2;
  let dir: string;
  let t: TestServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-chat-budget-'));
    fs.cpSync(path.join(ROOT, 'studies'), dir, { recursive: true });
    const file = path.join(dir, 'travel-planning.yaml');
    fs.appendFileSync(file, `\nchat:\n  max_user_messages: ${LIMIT}\n`);
    t = await startTestServer({ engine, studiesDir: dir, surveysDir: path.join(ROOT, 'surveys') });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('chat.max_user_messages', () => {
    it('defaults to 60 for a study that does not set it', () => {
      const config = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') });
      expect(config.studies.get('travel-planning')?.chat.max_user_messages).toBe(60);
    });

    it('refuses the message beyond the limit with limit_reached and stores nothing; resends still ack', async () => {
      const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'budget-1' });
      const socket = await connectSocket(t, j.token);
      await toWorkspace(socket);
      for (let i = 1; i <= LIMIT; i++) {
        const done = nextPush(socket, 'chat:done');
        await callOk(socket, 'chat:send', { clientId: `budget-${i}`, text: `Message ${i}`, clientTs: Date.now() });
        await done;
      }
      const messagesBefore = (await t.server.store.messages.listForSession(j.sessionId)).length;
      const eventsBefore = (await t.server.store.events.count(j.sessionId));

      const over = await call(socket, 'chat:send', { clientId: `budget-${LIMIT + 1}`, text: 'One more', clientTs: Date.now() });
      expect(over).toMatchObject({ ok: false, error: { code: 'limit_reached' } });
      if (!over.ok) expect(over.error.message).toMatch(new RegExp(`${LIMIT} messages`));
      expect((await t.server.store.messages.listForSession(j.sessionId))).toHaveLength(messagesBefore);
      expect((await t.server.store.events.count(j.sessionId))).toBe(eventsBefore);
      expect(t.server.participants.chat.repliesInFlight).toBe(0);

      // A resend of a message that was stored is acknowledged as a duplicate, not refused.
      const resend = await callOk(socket, 'chat:send', { clientId: `budget-${LIMIT}`, text: `Message ${LIMIT}`, clientTs: Date.now() });
      expect(resend.duplicate).toBe(true);

      // The budget is per session: another participant can still chat.
      const other = await join(t, 'travel-planning', { PROLIFIC_PID: 'budget-2' });
      const otherSocket = await connectSocket(t, other.token);
      await toWorkspace(otherSocket);
      const done = nextPush(otherSocket, 'chat:done');
      await callOk(otherSocket, 'chat:send', { clientId: 'other-msg-1', text: 'Hello', clientTs: Date.now() });
      await done;
    });
  });
});
