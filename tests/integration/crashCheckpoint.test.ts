/**
 * Crash checkpoints end to end: the server runs as a child process and is killed with SIGKILL (no shutdown
 * code runs) while a reply streams (200 tokens at 50 tokens/s from the local fake OpenAI server). After a
 * restart on the same data directory, the interrupted reply is stored with the text that had streamed up to
 * its last checkpoint (at most ~625 ms behind the participant's screen), marked interrupted, and the
 * participant gets it back with Retry available.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { callOk, connectSocket, join, nextPush, toWorkspace, type TestServer } from '../support/integrationHarness';
import { startNodeProcess, type NodeProcess } from './nodeProcess';

/** Starts crashServerProcess.ts under tsx (in-process loader, so the pid is the server itself). */
async function startChild(dataDir: string, providerBaseURL: string): Promise<NodeProcess> {
  const child = await startNodeProcess(path.join(import.meta.dirname, 'crashServerProcess.ts'), { DATA_DIR: dataDir, DATABASE_URL: '', PROVIDER_BASE_URL: providerBaseURL });
  children.push(child.process);
  return child;
}

/** The harness helpers only need the URL and a socket list. */
const asTestServer = (child: NodeProcess, dataDir: string): TestServer => child.asTestServer(dataDir);

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('SIGKILL mid-reply', () => {
  it('recovers the interrupted reply with the text streamed up to the last checkpoint; Retry completes the turn', async () => {
    const fake: FakeOpenAI = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-sigkill-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const full = Array.from({ length: 200 }, (_, i) => `${i % 10 === 0 ? '\n' : ' '}token`).join('');
    fake.script(reply(full, { tokensPerSecond: 50 }), reply('A complete answer after the crash.'));

    const first = await startChild(dataDir, fake.url);
    const t1 = asTestServer(first, dataDir);
    const j = await join(t1, 'travel-planning', { PROLIFIC_PID: 'sigkill-1' });
    const socket = await connectSocket(t1, j.token);
    await toWorkspace(socket);

    // What the participant saw, with when it arrived.
    const seen: Array<{ at: number; chars: number }> = [];
    let received = '';
    socket.on('chat:delta', (d) => {
      received += d.text;
      seen.push({ at: Date.now(), chars: received.length });
    });
    const firstDelta = nextPush(socket, 'chat:delta');
    const ack = await callOk(socket, 'chat:send', { clientId: 'sigkill-msg-1', text: 'Write a long plan', clientTs: Date.now() });
    await firstDelta;
    await new Promise((r) => setTimeout(r, 2_000));
    socket.disconnect();
    const killedAt = Date.now();
    first.process.kill('SIGKILL');
    await first.exited;
    expect(first.process.signalCode).toBe('SIGKILL');
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(full.length); // really cut mid-reply

    const second = await startChild(dataDir, fake.url);
    const t2 = asTestServer(second, dataDir);
    const again = await connectSocket(t2, j.token);
    const state = await callOk(again, 'session:state', {});
    expect(state).toMatchObject({ sessionId: j.sessionId, step: 'workspace', replyInFlight: null, canRetry: true });
    const cut = state.messages.find((m) => m.id === ack.replyId)!;
    expect(cut).toMatchObject({ role: 'assistant', status: 'interrupted', replyTo: ack.message.id });
    expect(cut.error).toMatch(/Retry/);
    // The stored text is what had streamed up to the last checkpoint: a non-empty prefix of what the
    // participant saw, missing at most the last ~625 ms (1 s allowed here for a loaded machine).
    expect(cut.text.length).toBeGreaterThan(0);
    expect(received.startsWith(cut.text)).toBe(true);
    const seenASecondBeforeKill = seen.filter((s) => s.at <= killedAt - 1_000).at(-1)?.chars ?? 0;
    expect(seenASecondBeforeKill).toBeGreaterThan(0);
    expect(cut.text.length).toBeGreaterThanOrEqual(seenASecondBeforeKill);

    // Retry regenerates the answer; the broken text is not sent to the model as the assistant's turn.
    const done = nextPush(again, 'chat:done');
    const retry = await callOk(again, 'chat:retry', { clientTs: Date.now() });
    expect((await done).message).toMatchObject({ id: retry.replyId, status: 'complete', text: 'A complete answer after the crash.' });
    expect(fake.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === 'assistant')).toHaveLength(0);
    again.disconnect();
    second.process.kill('SIGTERM');
    await second.exited;

    const store = await openStore({ dataDir: dataDir });
    try {
      const row = (await store.messages.get(ack.replyId!))!;
      expect(row).toMatchObject({ status: 'interrupted', interrupted: true, text: cut.text, finishReason: 'error', provider: 'openai-compatible' });
      expect(row.tokens).toBeGreaterThan(0);
      expect(row.durationMs).toBeGreaterThan(0);
      const events = (await store.events.listForSession(j.sessionId));
      const recovered = events.find((e) => e.type === 'reply.finished' && (e.payload as { replyId: string }).replyId === ack.replyId)!;
      expect(recovered.payload).toMatchObject({ status: 'interrupted', text: cut.text, recovered: true });
      const started = events.filter((e) => e.type === 'reply.started').map((e) => (e.payload as { replyId: string }).replyId);
      const finished = events.filter((e) => e.type === 'reply.finished').map((e) => (e.payload as { replyId: string }).replyId);
      expect(finished.sort()).toEqual(started.sort());
      expect((await store.replyProgress.count())).toBe(0);
    } finally {
      await store.close();
    }
  });
});
