import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import type { SessionState } from '../../common/session';
import { formatReport } from '../harness/checkLog';
import { runCrashScenario } from '../harness/crashRun';
import { joinStudy } from '../../research/simulation/http';
import { ReliableSocket } from '../../research/simulation/reliableSocket';
import { ServerChild } from '../harness/serverChild';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';

// The server runs as a child process so it can be SIGKILLed (no shutdown code runs) and restarted
// on the same data directory and port.

let fake: FakeOpenAI | undefined;
let server: ServerChild | undefined;
const sockets: ReliableSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await server?.dispose();
  await fake?.close();
  server = undefined;
  fake = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** Data folders of the per-engine targets (ServerChild removes only folders it made itself). */
const dirs: string[] = [];

/** Joins, consents and reaches the workspace; returns the participant's socket. */
async function workspaceSession(baseUrl: string, label: string) {
  const joined = await joinStudy(baseUrl, 'travel-planning', { participant_label: label }, 20_000);
  const socket = new ReliableSocket({ url: baseUrl, token: joined.token, requestDeadlineMs: 30_000, ackTimeoutMs: 10_000 });
  sockets.push(socket);
  const state = await socket.request('session:state', { clientTs: Date.now() });
  if (!state.ok) throw new Error(state.error.message);
  await socket.request('consent:respond', { accept: true, version: (state.data as SessionState).consent.version, clientTs: Date.now() });
  await socket.request('step:advance', { from: 'instructions', clientTs: Date.now() });
  return { socket, sessionId: joined.sessionId };
}

describe.each(STORE_ENGINES)('crash and resume (%s)', (engine) => {
  it('an unacknowledged message is resent after a SIGKILL with the same clientId and stored exactly once', async () => {
    fake = await startFakeOpenAI({ responder: () => reply('ok') });
    const target = await createTestStoreTarget(engine, 'crash');
    dirs.push(target.dataDir);
    server = new ServerChild({ providerBaseURL: fake.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl });
    await server.start();
    const { socket, sessionId } = await workspaceSession(server.url, 'crash-resend');

    // Freeze the server so the message cannot be acknowledged, then kill it and start it again.
    process.kill(server.pid!, 'SIGSTOP');
    const pending = socket.request('chat:send', { clientId: 'crashresend01', text: 'are you there?', clientTs: Date.now() });
    await new Promise((r) => setTimeout(r, 300));
    await server.crash();
    await server.restart();
    const ack = await pending;
    expect(ack.ok).toBe(true);
    expect(ack.attempts).toBeGreaterThanOrEqual(2); // it really was resent

    // A second resend (e.g. a reload that lost the ack) is answered from the store, not stored again.
    const again = await socket.request('chat:send', { clientId: 'crashresend01', text: 'are you there?', clientTs: Date.now() });
    expect(again.ok && (again.data as { duplicate: boolean }).duplicate).toBe(true);

    await server.stop();
    const store = await openStore(target);
    try {
      const users = (await store.messages.listForSession(sessionId)).filter((m) => m.role === 'user');
      expect(users.map((m) => m.clientId)).toEqual(['crashresend01']);
      const events = (await store.events.listForSession(sessionId)).filter((e) => (e.payload as { clientId?: string })?.clientId === 'crashresend01');
      expect(events).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  // Start-up recovery (server/services/recovery.ts) stores replies left mid-stream as interrupted.
  it('a reply cut by SIGKILL is stored as interrupted; the session resumes and a retry completes it', async () => {
    const long = Array.from({ length: 80 }, (_, i) => ` w${i}`).join('');
    // The first reply streams slowly so the kill lands mid-stream; the retry after the restart need not.
    let replies = 0;
    fake = await startFakeOpenAI({ tokensPerSecond: 40, responder: () => (replies++ === 0 ? reply(long) : reply(long, { tokensPerSecond: 400 })) });
    const target = await createTestStoreTarget(engine, 'crash');
    dirs.push(target.dataDir);
    server = new ServerChild({ providerBaseURL: fake.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl });
    await server.start();
    const { socket, sessionId } = await workspaceSession(server.url, 'crash-midreply');
    // Let ~1 s of the 2 s reply stream (past the server's ~500 ms checkpoint interval), then kill.
    let seen = '';
    const halfway = new Promise<void>((resolve) =>
      socket.socket.on('chat:delta', (d: { text: string }) => {
        seen += d.text;
        if (seen.split(' w').length > 40) resolve();
      }),
    );
    const sent = await socket.request('chat:send', { clientId: 'crashmidreply1', text: 'tell me a long story', clientTs: Date.now() });
    if (!sent.ok) throw new Error(sent.error.message);
    const { replyId, message } = sent.data as { replyId: string; message: { id: string } };
    await halfway;
    await server.crash();
    const seenBeforeCrash = seen;
    await server.restart();

    const state = await socket.request('session:state', { clientTs: Date.now() });
    if (!state.ok) throw new Error(`session:state after restart: ${state.error.message}`);
    const s = state.data as SessionState;
    expect(s.sessionId).toBe(sessionId);
    expect(s.step).toBe('workspace');
    expect(s.replyInFlight).toBeNull(); // nothing pretends to be streaming after the restart
    expect(s.messages.find((m) => m.id === replyId)?.status).toBe('interrupted');

    const done = new Promise<{ status: string; text: string }>((resolve) => socket.socket.once('chat:done', (d: { message: { status: string; text: string } }) => resolve(d.message)));
    const retry = await socket.request('chat:retry', { clientTs: Date.now() });
    expect(retry.ok).toBe(true);
    const completed = await done;
    expect(completed.status).toBe('complete');
    expect(completed.text).toBe(long);

    await server.stop();
    const store = await openStore(target);
    try {
      const cut = (await store.messages.get(replyId));
      expect(cut?.status).toBe('interrupted');
      expect(cut?.interrupted).toBe(true);
      expect(cut?.replyTo).toBe(message.id);
      // What was kept of it is the last streaming checkpoint: part of what the participant saw.
      expect(cut?.text.length).toBeGreaterThan(0);
      expect(seenBeforeCrash.startsWith(cut?.text ?? '<missing>')).toBe(true);
      // …with its outcome event in the trajectory, so no reply.started dangles.
      const events = (await store.events.listForSession(sessionId));
      const started = events.filter((e) => e.type === 'reply.started').map((e) => (e.payload as { replyId: string }).replyId);
      const finished = events.filter((e) => e.type === 'reply.finished').map((e) => (e.payload as { replyId: string }).replyId);
      expect(started).toHaveLength(2);
      expect(finished.sort()).toEqual([...started].sort());
    } finally {
      await store.close();
    }
  });

});

describe('crash and resume', () => {
  it('repeated SIGKILLs during a small load run lose and duplicate nothing, and every session resumes', async () => {
    const r = await runCrashScenario({ studyId: 'travel-planning', participants: 6, turns: 3, kills: 2, killEveryMs: 1_500, sessionDeadlineMs: 60_000 });
    expect(r.kills).toBeGreaterThanOrEqual(1);
    expect(r.simulation.errorSamples).toEqual([]);
    expect(r.simulation.completed).toBe(6);
    expect(r.simulation.streamMismatches).toBe(0);
    expect(r.check.lost, formatReport(r.check)).toEqual([]);
    expect(r.check.duplicated).toEqual([]);
    expect(r.check.phantom).toEqual([]);
    expect(r.check.unanswered).toEqual([]);
    expect(r.check.unfinishedReplies).toEqual([]);
    expect(r.check.duplicatedLifecycle).toEqual([]);
    expect(r.check.badInterruptFlags).toEqual([]);
    expect(r.check.problems).toEqual([]);
    expect(r.check.acked).toBe(18);
    expect(r.resume.problems).toEqual([]);
    expect(r.resume.checked).toBe(6);
    // Above the scenario's own bounds (60 s per session, plus the starts, restarts and the check), so a slow run on a
    // busy box fails with the scenario's report rather than vitest's bare timeout (it timed out at 60 s at load 10).
  }, 180_000);
});
