/**
 * A graceful restart (server.close(), as on SIGTERM) while the model is still drafting a reviewed reply: the half
 * draft is not stored, the review stays waiting, and the next start drafts it again and waits for the researcher.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { startTandem } from '../../wiring/startTandem';
import { createLogger } from '../../lib/logger';
import { callOk, connectSocket, join, nextPush, toWorkspace, type TestServer } from '../support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { REPO_ROOT, until, wizardStudiesDir } from '../support/wizardTestSupport';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-woz-restart-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('restart while a reviewed reply is drafting', () => {
  it('drafts it again after the restart and sends it once', async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    const fake = await startFakeOpenAI();
    const slow = 'word '.repeat(200);
    const draft = 'A fresh draft after the restart.';
    fake.script(reply(slow, { tokensPerSecond: 20 }), reply(draft));
    const studiesDir = wizardStudiesDir({ review: { timeout_seconds: 600 } });
    const start = () =>
      startTandem({
        dataDir,
        studiesDir,
        surveysDir: path.join(REPO_ROOT, 'surveys'),
        port: 0,
        host: '127.0.0.1',
        env: {},
        openai: { baseURL: fake.url, apiKey: 'k', backoffBaseMs: 5 },
        logger: createLogger('error'),
      });
    const asTest = (url: string): TestServer => ({ server: { url } as never, dataDir, sockets: [], close: async () => {} });
    try {
      const first = await start();
      const j = await join(asTest(first.url), 'woz-review', { PROLIFIC_PID: 'woz-restart' });
      const socket = await connectSocket(asTest(first.url), j.token);
      await toWorkspace(socket);
      const ack = await callOk(socket, 'chat:send', { clientId: 'woz-restart-1', text: 'Plan it', clientTs: Date.now() });
      await until('the review', () => first.store.reviews.get(ack.replyId!));
      await new Promise((r) => setTimeout(r, 300)); // some of the slow draft has streamed
      socket.disconnect();
      await first.close();

      const second = await start();
      try {
        // Not stored as interrupted, and drafted again from the start.
        expect((await second.store.messages.listForSession(j.sessionId)).map((m) => m.role)).toEqual(['user']);
        const review = await until('the new draft', async () => {
          const r = await second.store.reviews.get(ack.replyId!);
          return r?.draftText ? r : undefined;
        });
        expect(review).toMatchObject({ state: 'waiting', draftText: draft });
        expect(fake.requests).toHaveLength(2);
        const again = await connectSocket(asTest(second.url), j.token);
        const done = nextPush(again, 'chat:done');
        const researcher = await loginAdmin(second.url);
        expect((await researcher.post(`/api/admin/wizard/reviews/${ack.replyId}/send`, { action: 'approve' })).status).toBe(200);
        expect((await done).message).toMatchObject({ id: ack.replyId, text: draft, status: 'complete' });
        const finished = (await second.store.events.listForSession(j.sessionId)).filter((e) => e.type === 'reply.finished');
        expect(finished).toHaveLength(1);
        again.disconnect();
      } finally {
        await second.close();
      }
    } finally {
      await fake.close();
    }
  }, 60_000);
});
