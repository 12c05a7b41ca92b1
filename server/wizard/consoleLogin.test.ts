/**
 * A /wizard console socket lives only as long as the researcher login behind it: logout (on this node or any
 * other) and the login's expiry close it, so it stops receiving participants' drafts. The audit saw a
 * logged-out console receive 87 drafts. Real server and SQLite store, real socket.io console clients, the real
 * `openai` client streaming drafts from a local OpenAI-compatible server.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { callOk, joinToWorkspace, startTestServer, type TestServer } from '../../tests/support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../../tests/support/adminTestServer';
import { REPO_ROOT, until, watchConsole, wizardStudiesDir } from '../../tests/support/wizardTestSupport';
import { SESSION_TTL_MS } from '../admin/auth';
import { CONSOLE_RECHECK_MS } from './consoleSocket';

describe('wizard console sockets and the researcher login', () => {
  let fake: FakeOpenAI;
  let t: TestServer;
  let clock = Date.now();
  let n = 0;

  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    fake = await startFakeOpenAI({ model: 'gpt-4o-mini-2024-07-18', tokensPerSecond: 0 });
    t = await startTestServer({
      now: () => clock,
      studiesDir: wizardStudiesDir({ review: { timeout_seconds: 60 } }),
      surveysDir: path.join(REPO_ROOT, 'surveys'),
      openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const closed = (socket: { connected: boolean }) => until('the console socket closed', () => !socket.connected, 3 * CONSOLE_RECHECK_MS + 2_000);

  /** A participant's message in the reviewed study; resolves once its draft is stored. */
  async function draftStored(): Promise<string> {
    fake.script(reply('A draft the console must not see.', { chunks: 4, tokensPerSecond: 400 }));
    const p = await joinToWorkspace(t, 'woz-review', { PROLIFIC_PID: `woz-login-${++n}` });
    const ack = await callOk(p.socket, 'chat:send', { clientId: `woz-login-${n}`, text: 'Where should we go?', clientTs: Date.now() });
    await until('the stored draft', async () => (await t.server.store.reviews.get(ack.replyId!))?.draftText ?? undefined);
    return ack.replyId!;
  }

  it('closes the console after logout, and it receives no draft afterwards', async () => {
    const alice = await loginAdmin(t.server.url);
    const console = await watchConsole(t.server.url, alice.cookie, 'woz-review');
    expect((await alice.post('/api/admin/logout')).status).toBe(200);
    await closed(console.socket);
    await draftStored();
    expect(console.drafts).toEqual([]);
    expect(console.socket.connected).toBe(false);
  });

  it('closes the console when the login expires', async () => {
    const bob = await loginAdmin(t.server.url);
    const console = await watchConsole(t.server.url, bob.cookie, 'woz-review');
    // Still open while the login is live.
    await new Promise((r) => setTimeout(r, 2 * CONSOLE_RECHECK_MS));
    expect(console.socket.connected).toBe(true);
    clock += SESSION_TTL_MS + 1;
    await closed(console.socket);
    await draftStored();
    expect(console.drafts).toEqual([]);
  });
});
