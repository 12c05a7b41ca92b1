/**
 * Artifact drafts and the per-session storage budget over real socket.io clients (issues 15 and 16):
 * autosaves are coalesced (the draft row in place, an artifact.draft_saved event at most once per interval,
 * the final draft recorded before the submission), a session past its storage budget is refused with
 * `storage_full`, and two tabs of one session see each other's messages and cannot silently overwrite each
 * other's drafts (`conflict`). Sizes and counts are read through store methods, never SQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { tinyPng } from '../support/png';
import { STORE_ENGINES } from '../support/testStores';
import { actionMessageOf } from '../../client/participant/errorMessages';
import { RequestError } from '../../client/socket/errors';

const KB = 1024;

/** Visualization's three text fields filled to 24,000 characters, made unique by `n`. */
function bigFields(n: number): Record<string, string> {
  const tag = `#${n}#`;
  return {
    hypothesis: (tag + 'h'.repeat(1000)).slice(0, 1000),
    code: (tag + 'c'.repeat(20_000)).slice(0, 20_000),
    interpretation: (tag + 'i'.repeat(3000)).slice(0, 3000),
  };
}

/** Events of the session other than socket connections (those are written asynchronously as sockets connect). */
async function workEvents(server: TestServer, sessionId: string): Promise<number> {
  return (await server.server.store.events.listForSession(sessionId)).filter((e) => !e.type.startsWith('connection.')).length;
}

describe.each(STORE_ENGINES)('artifact drafts and session storage (%s)', (engine) => {
  let t: TestServer | undefined;
  let clock = Date.now();
  let n = 0;
  const pid = () => `drafts-${++n}-${Math.random().toString(36).slice(2, 8)}`;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function start(storage?: { sessionBudgetBytes?: number; draftEventIntervalMs?: number }): Promise<TestServer> {
    clock = Date.now();
    t = await startTestServer({ engine, now: () => clock, ...(storage ? { storage } : {}) });
    return t;
  }

  async function uploadPlot(server: TestServer, token: string): Promise<string> {
    const res = await fetch(`${server.server.url}/api/session/upload?field=plot&name=plot.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: new Uint8Array(tinyPng()),
    });
    const body = (await res.json()) as { data: { uploadId: string } };
    return body.data.uploadId;
  }

  it('400 autosaves of 24 KB keep the draft in place and record an event at most every 5 s, the final draft before the submission', async () => {
    const server = await start();
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    // Several sockets of one token, as in the audit (each socket has its own event flood guard).
    const sockets: ParticipantClient[] = [];
    for (let i = 0; i < 4; i++) sockets.push(await connectSocket(server, j.token));
    await toWorkspace(sockets[0]!);
    const store = server.server.store;
    const bytesBefore = await store.sessions.storageBytes(j.sessionId);
    const eventsBefore = await workEvents(server, j.sessionId);

    const saves = 400;
    const stepMs = 100; // 400 saves over 40 s of server time
    for (let i = 1; i <= saves; i++) {
      clock += stepMs;
      const ack = await callOk(sockets[i % sockets.length]!, 'artifact:draft', { fields: bigFields(i), clientTs: Date.now() });
      expect(ack).toEqual({ savedAt: clock, version: i });
    }

    const draftEvents = (await store.events.listForSession(j.sessionId)).filter((e) => e.type === 'artifact.draft_saved');
    // The first save, then one per 5 s of saving: 40 s → at most 1 + 40/5 events (the old code wrote 400).
    expect(draftEvents.length).toBeGreaterThanOrEqual(2);
    expect(draftEvents.length).toBeLessThanOrEqual(1 + (saves * stepMs) / 5_000);
    for (let i = 1; i < draftEvents.length; i++) expect(draftEvents[i]!.serverTs - draftEvents[i - 1]!.serverTs).toBeGreaterThanOrEqual(5_000);
    expect(await workEvents(server, j.sessionId)).toBe(eventsBefore + draftEvents.length);
    // What the session holds grew by the recorded events plus one draft, not by 400 × 24 KB (≈ 9.6 MB).
    const grown = (await store.sessions.storageBytes(j.sessionId)) - bytesBefore;
    expect(grown).toBeGreaterThan(24_000 * (draftEvents.length + 1));
    expect(grown).toBeLessThan((draftEvents.length + 1) * 25 * KB);
    expect(grown).toBeLessThan(400 * KB);
    const draft = (await store.artifacts.getDraft(j.sessionId))!;
    expect(draft).toMatchObject({ fields: bigFields(saves), version: saves, savedAt: clock });
    expect(draft.recordedVersion).toBeLessThan(saves);

    // The submission records the last draft first (its saves after the last event were coalesced away).
    const plot = await uploadPlot(server, j.token);
    clock += 1_000;
    const submitted = { ...bigFields(saves), plot };
    await callOk(sockets[0]!, 'artifact:submit', { fields: submitted, clientTs: Date.now() });
    const events = await store.events.listForSession(j.sessionId);
    const at = events.findIndex((e) => e.type === 'artifact.submitted');
    expect(events[at - 1]).toMatchObject({ type: 'artifact.draft_saved', payload: { fields: bigFields(saves), version: saves, savedAt: clock - 1_000 } });
    expect(await store.artifacts.getDraft(j.sessionId)).toMatchObject({ version: saves, recordedVersion: saves });
  });

  it('refuses saves and messages past the session storage budget with storage_full and a message for the participant', async () => {
    const budget = 150 * KB;
    const server = await start({ sessionBudgetBytes: budget, draftEventIntervalMs: 0 });
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const socket = await connectSocket(server, j.token);
    await toWorkspace(socket);
    const store = server.server.store;

    let refused: { code: string; message: string } | undefined;
    let accepted = 0;
    for (let i = 1; i <= 20 && !refused; i++) {
      clock += 1_000;
      const reply = await call(socket, 'artifact:draft', { fields: bigFields(i), clientTs: Date.now() });
      if (reply.ok) accepted = i;
      else refused = reply.error;
    }
    // Each recorded save holds ~24 KB in its event plus the draft row: a few fit into 150 KB, then none.
    expect(accepted).toBeGreaterThanOrEqual(3);
    expect(accepted).toBeLessThan(8);
    expect(refused).toMatchObject({ code: 'storage_full', message: expect.stringContaining('storage budget is used up') });
    expect(await store.sessions.storageBytes(j.sessionId)).toBeLessThanOrEqual(budget);
    // Nothing of the refused save was stored; the last accepted draft is kept.
    expect(await store.artifacts.getDraft(j.sessionId)).toMatchObject({ fields: bigFields(accepted), version: accepted });
    // What the participant reads for that code (client/participant/errorMessages.ts).
    const shown = actionMessageOf(new RequestError('storage_full', refused!.message));
    expect(shown).toContain('please submit your answer now');
    expect(shown).not.toContain('budget');

    // Chat messages (4,000 characters, stored twice, plus their replies) are refused once they would not fit.
    let sent = 0;
    let chatRefusal: { code: string } | undefined;
    for (let i = 1; i <= 4 && !chatRefusal; i++) {
      const done = nextPush(socket, 'chat:done');
      const reply = await call(socket, 'chat:send', { clientId: `over-budget-${i}`, text: `${i} ${'x'.repeat(3990)}`, clientTs: Date.now() });
      if (!reply.ok) {
        chatRefusal = reply.error;
        done.catch(() => undefined); // no reply comes for a refused message
      } else {
        sent++;
        await done;
      }
    }
    expect(chatRefusal).toMatchObject({ code: 'storage_full' });
    expect(await store.messages.count(j.sessionId)).toBe(2 * sent);

    // Submitting what is saved still works.
    const plot = await uploadPlot(server, j.token);
    const state = await callOk(socket, 'artifact:submit', { fields: { ...bigFields(accepted), plot }, clientTs: Date.now() });
    expect(state.step).toBe('survey');
  });

  it("mirrors a participant's message to every tab of the session, once per message", async () => {
    const server = await start();
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const tab1 = await connectSocket(server, j.token);
    const tab2 = await connectSocket(server, j.token);
    await toWorkspace(tab1);
    const other = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const stranger = await connectSocket(server, other.token);
    let leaked = 0;
    stranger.on('chat:message', () => leaked++);
    const mirrored: string[] = [];
    tab2.on('chat:message', ({ message }) => mirrored.push(message.id));

    const inTab2 = nextPush(tab2, 'chat:message');
    const inTab1 = nextPush(tab1, 'chat:message');
    const done2 = nextPush(tab2, 'chat:done');
    const ack = await callOk(tab1, 'chat:send', { clientId: 'two-tabs-msg-1', text: 'Sent from tab 1', clientTs: Date.now() });
    const pushed = await inTab2;
    expect(pushed.message).toEqual(ack.message);
    expect(pushed.message).toMatchObject({ role: 'user', text: 'Sent from tab 1', clientId: 'two-tabs-msg-1' });
    expect((await inTab1).message.id).toBe(ack.message.id);
    expect((await done2).message.replyTo).toBe(ack.message.id);

    // A resend of the same message (lost ack) stores and mirrors nothing new.
    const again = await callOk(tab1, 'chat:send', { clientId: 'two-tabs-msg-1', text: 'Sent from tab 1', clientTs: Date.now() });
    expect(again.duplicate).toBe(true);
    await callOk(tab2, 'session:state', {});
    expect(mirrored).toEqual([ack.message.id]);
    expect(leaked).toBe(0);
  });

  it('refuses a draft save based on a version another tab has replaced (conflict), and saves once the tab has the newer version', async () => {
    const server = await start();
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const tab1 = await connectSocket(server, j.token);
    const tab2 = await connectSocket(server, j.token);
    await toWorkspace(tab1);
    const store = server.server.store;
    // Both tabs opened the workspace before any draft: base version 0.
    expect((await callOk(tab2, 'session:state', {})).draft).toBeNull();

    clock += 1_000;
    expect(await callOk(tab1, 'artifact:draft', { fields: { hypothesis: 'tab 1 text' }, baseVersion: 0, clientTs: Date.now() })).toMatchObject({ version: 1 });
    const eventsBefore = await workEvents(server, j.sessionId);
    clock += 1_000;
    const stale = await call(tab2, 'artifact:draft', { fields: { hypothesis: 'tab 2 text' }, baseVersion: 0, clientTs: Date.now() });
    expect(stale).toMatchObject({ ok: false, error: { code: 'conflict', field: 'baseVersion', message: expect.stringContaining('another tab') } });
    expect(await store.artifacts.getDraft(j.sessionId)).toMatchObject({ fields: { hypothesis: 'tab 1 text' }, version: 1 });
    expect(await workEvents(server, j.sessionId)).toBe(eventsBefore);

    // Tab 2 loads the newer draft (what its notice offers), then saves on top of it.
    const state = await callOk(tab2, 'session:state', {});
    expect(state.draft).toMatchObject({ fields: { hypothesis: 'tab 1 text' }, version: 1 });
    clock += 1_000;
    expect(await callOk(tab2, 'artifact:draft', { fields: { hypothesis: 'tab 1 text, then tab 2' }, baseVersion: 1, clientTs: Date.now() })).toMatchObject({ version: 2 });
    // Now tab 1 is the stale one.
    expect(await call(tab1, 'artifact:draft', { fields: { hypothesis: 'tab 1 again' }, baseVersion: 1, clientTs: Date.now() })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    // Saving what is already stored is no conflict: it returns the stored version.
    expect(await callOk(tab1, 'artifact:draft', { fields: { hypothesis: 'tab 1 text, then tab 2' }, baseVersion: 1, clientTs: Date.now() })).toMatchObject({ version: 2 });
    expect(await store.artifacts.getDraft(j.sessionId)).toMatchObject({ fields: { hypothesis: 'tab 1 text, then tab 2' }, version: 2 });
  });

  it('two tabs saving on the same version at the same moment: one is stored, the other refused as stale', async () => {
    const server = await start();
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const tab1 = await connectSocket(server, j.token);
    const tab2 = await connectSocket(server, j.token);
    await toWorkspace(tab1);
    const [a, b] = await Promise.all([
      call(tab1, 'artifact:draft', { fields: { hypothesis: 'from tab 1' }, baseVersion: 0, clientTs: Date.now() }),
      call(tab2, 'artifact:draft', { fields: { hypothesis: 'from tab 2' }, baseVersion: 0, clientTs: Date.now() }),
    ]);
    expect([a.ok, b.ok].sort()).toEqual([false, true]);
    const loser = (a.ok ? b : a) as { ok: false; error: { code: string } };
    expect(loser.error.code).toBe('conflict');
    const winner = a.ok ? 'from tab 1' : 'from tab 2';
    expect(await server.server.store.artifacts.getDraft(j.sessionId)).toMatchObject({ fields: { hypothesis: winner }, version: 1 });
  });

  it('records the last coalesced draft before the time-out', async () => {
    const server = await start();
    const j = await join(server, 'visualization', { PROLIFIC_PID: pid() });
    const socket = await connectSocket(server, j.token);
    await toWorkspace(socket);
    clock += 1_000;
    await callOk(socket, 'artifact:draft', { fields: { hypothesis: 'first' }, baseVersion: 0, clientTs: Date.now() });
    clock += 1_000; // within the 5 s interval: kept in place only
    await callOk(socket, 'artifact:draft', { fields: { hypothesis: 'last words' }, baseVersion: 1, clientTs: Date.now() });
    const types = async () => (await server.server.store.events.listForSession(j.sessionId)).filter((e) => e.type === 'artifact.draft_saved').map((e) => e.payload);
    expect(await types()).toEqual([{ fields: { hypothesis: 'first' }, version: 1 }]);

    clock += 31 * 60_000; // past the study's 30-minute limit
    expect((await callOk(socket, 'session:state', {})).status).toBe('timed_out');
    expect(await types()).toEqual([
      { fields: { hypothesis: 'first' }, version: 1 },
      { fields: { hypothesis: 'last words' }, version: 2, savedAt: clock - 31 * 60_000 },
    ]);
    const events = await server.server.store.events.listForSession(j.sessionId);
    const timedOut = events.findIndex((e) => e.type === 'session.timed_out');
    expect(events[timedOut - 1]).toMatchObject({ type: 'artifact.draft_saved', payload: { version: 2 } });
  });
});
