/**
 * A SIGKILL while a model draft waits for a researcher: the server runs as a child process (crashServerProcess.ts) and is killed (no
 * shutdown code runs) after the draft was stored and claimed. After a restart on the same data directory the
 * reply is still waiting (not interrupted, not sent), the participant's reply is in flight again (and stays so past
 * the new process's lease heartbeats), the same
 * researcher still holds the claim, and their send stores the reply exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import type { RunningServer } from '../../server/app';
import { callOk, connectSocket, join, nextPush, toWorkspace, type TestServer } from '../support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerChild } from '../support/serverChild';
import { REPO_ROOT, until, wizardStudiesDir } from '../support/wizardTestSupport';

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const startChild = (env: Record<string, string>) =>
  startServerChild({ ...env, SURVEYS_DIR: path.join(REPO_ROOT, 'surveys'), ADMIN_PASSWORD: TEST_ADMIN_PASSWORD }, children);

const asTestServer = (url: string, dataDir: string): TestServer => ({ server: { url } as unknown as RunningServer, dataDir, sockets: [], close: async () => {} });

describe('SIGKILL while a draft waits for review', () => {
  it('keeps the reply waiting across the restart and sends it once', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-woz-sigkill-'));
    const studiesDir = wizardStudiesDir({ review: { timeout_seconds: 600 } });
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const draft = 'Porto: two days by the river, one in the vineyards.';
    fake.script(reply(draft));
    const env = { DATA_DIR: dataDir, PROVIDER_BASE_URL: fake.url, STUDIES_DIR: studiesDir };

    const first = await startChild(env);
    const t1 = asTestServer(first.url, dataDir);
    const j = await join(t1, 'woz-review', { PROLIFIC_PID: 'woz-sigkill' });
    const socket = await connectSocket(t1, j.token);
    await toWorkspace(socket);
    const ack = await callOk(socket, 'chat:send', { clientId: 'woz-sigkill-1', text: 'Plan my trip', clientTs: Date.now() });
    const researcher = await loginAdmin(first.url);
    await until('the stored draft', async () => {
      const q = (await (await researcher.get('/api/admin/wizard/studies/woz-review/queue')).json()) as any;
      return q.data.items.find((i: { replyId: string; draftDone: boolean }) => i.replyId === ack.replyId && i.draftDone);
    });
    expect((await researcher.post(`/api/admin/wizard/reviews/${ack.replyId}/claim`)).status).toBe(200);
    socket.disconnect();
    first.process.kill('SIGKILL');
    await first.exited;
    expect(first.process.signalCode).toBe('SIGKILL');

    // Heartbeats every 200 ms: the resumed reply must still be in flight after several (it holds its lease now,
    // where the first heartbeat used to find the lease of the killed process and drop the reply).
    const second = await startChild({ ...env, TANDEM_LEASE_HEARTBEAT_MS: '200' });
    const t2 = asTestServer(second.url, dataDir);
    // The researcher's login survives the restart (it is in the store), and so do the draft and the claim.
    const queue = (await (await fetch(`${second.url}/api/admin/wizard/studies/woz-review/queue`, { headers: { cookie: researcher.cookie } })).json()) as any;
    expect(queue.data.items).toEqual([expect.objectContaining({ replyId: ack.replyId, state: 'claimed', claimed: 'you', draftDone: true })]);
    await new Promise((r) => setTimeout(r, 1_000));
    const again = await connectSocket(t2, j.token);
    const state = await callOk(again, 'session:state', {});
    // Not interrupted: no assistant message yet, and the reply is in flight again (typing indicator).
    expect(state.messages.filter((m) => m.role === 'assistant')).toEqual([]);
    expect(state.replyInFlight).toMatchObject({ replyId: ack.replyId, text: '' });

    const done = nextPush(again, 'chat:done');
    const send = await fetch(`${second.url}/api/admin/wizard/reviews/${ack.replyId}/send`, {
      method: 'POST',
      headers: { cookie: researcher.cookie, 'x-csrf-token': researcher.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'approve' }),
    });
    expect(send.status).toBe(200);
    expect((await done).message).toMatchObject({ id: ack.replyId, status: 'complete', text: draft });
    expect(fake.requests).toHaveLength(1); // the stored draft was not asked for again
    again.disconnect();
    second.process.kill('SIGTERM');
    await second.exited;

    const store = await openStore({ dataDir });
    try {
      const events = await store.events.listForSession(j.sessionId);
      const finished = events.filter((e) => e.type === 'reply.finished');
      expect(finished).toHaveLength(1);
      expect(finished[0]!.payload).toMatchObject({ replyId: ack.replyId, status: 'complete', review: { origin: 'model', state: 'sent' } });
      expect((await store.messages.listForSession(j.sessionId)).map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(await store.reviews.get(ack.replyId!)).toMatchObject({ state: 'sent', origin: 'model' });
    } finally {
      await store.close();
    }
  }, 90_000);
});
