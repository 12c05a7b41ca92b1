/**
 * Group sessions over real socket.io clients and a real server, on both engines: the lobby (a full group at once,
 * several tabs counted once, timeouts that start smaller or release, quota matching), the room (names not ids,
 * agent replies streamed, history on reload), room isolation against forged group ids, the shared document's
 * updates, and dropouts with each policy.
 */
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Envelope } from '../../common/envelope';
import type { GroupClientEventName, GroupPush, GroupPushName, GroupView } from '../../common/groupEvents';
import { STORE_ENGINES } from '../support/testStores';
import { callOk, connectSocket, eventually, join, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { groupStudyDirs } from '../support/groupTestStudies';
import { exportStudy } from '../../research/exports/exportStudy';

function groupCall(socket: ParticipantClient, event: GroupClientEventName, payload: unknown): Promise<Envelope<any>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 10_000);
    (socket.emit as any)(event, payload, (reply: Envelope<unknown>) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}
async function groupOk<T = any>(socket: ParticipantClient, event: GroupClientEventName, payload: unknown = {}): Promise<T> {
  const reply = await groupCall(socket, event, payload);
  if (!reply.ok) throw new Error(`${event} failed: ${JSON.stringify(reply.error)}`);
  return reply.data as T;
}

/** Every push of `event` this socket receives from now on. */
function collect<E extends GroupPushName>(socket: ParticipantClient, event: E): GroupPush<E>[] {
  const seen: GroupPush<E>[] = [];
  (socket.on as any)(event, (p: GroupPush<E>) => seen.push(p));
  return seen;
}

describe.each(STORE_ENGINES)('group sessions (%s)', (engine) => {
  let t: TestServer;
  let clock = Date.UTC(2026, 11, 2, 9);
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    t = await startTestServer({ engine, studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, now: () => clock, groups: { sweepMs: 60_000 } });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  /** A person who joined and consented, with one socket (more with `tab`). */
  async function person(studyId: string, params: Record<string, string> = {}) {
    clock += 1; // arrival order is the lobby's order
    const label = `p${crypto.randomUUID().slice(0, 8)}`;
    const joined = await join(t, studyId, { participant_label: label, ...params });
    const socket = await connectSocket(t, joined.token);
    const state = await callOk(socket, 'session:state', {});
    await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clock });
    const views = collect(socket, 'group:view');
    return { joined, socket, views, tab: () => connectSocket(t, joined.token) };
  }
  const grouped = (v: GroupView) => (v.state === 'grouped' ? v : null);

  /**
   * A person the lobby released has their session ended in the release's transaction: timed_out at step complete,
   * the lobby's code in their session state and in the trajectory's session.completed with the reason.
   */
  async function expectEndedByRelease(sessionId: string, socket: ParticipantClient, reason: 'lobby_timeout' | 'no_seat') {
    expect(await t.server.store.sessions.get(sessionId)).toMatchObject({ status: 'timed_out', step: 'complete', endedAt: clock });
    expect((await callOk(socket, 'session:state', {})).completion).toEqual({ outcome: 'timed_out', code: 'L0GRP2026', redirectUrl: null, lobbyReleased: true });
    const events = await t.server.store.events.listForSession(sessionId);
    expect(events.filter((e) => e.type === 'step.changed').at(-1)!.payload).toEqual({ from: 'instructions', to: 'complete' });
    expect(events.filter((e) => e.type === 'session.completed').map((e) => [e.payload, e.serverTs])).toEqual([[{ outcome: 'timed_out', code: 'L0GRP2026', reason }, clock]]);
    expect(events.map((e) => e.type)).not.toContain('session.timed_out');
    expect(await groupCall(socket, 'group:lobby:join', {})).toMatchObject({ ok: false, error: { code: 'session_over' } });
  }
  /** The study's sessions.csv rows. */
  async function exportedSessions(studyId: string): Promise<Record<string, string>[]> {
    const out = joinPath(t.dataDir, `export-${studyId}-${crypto.randomUUID().slice(0, 8)}`);
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId, outDir: out, includePilot: true, includeIdentities: false });
    return parse(readFileSync(joinPath(out, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  }

  it('seats a full group at once, counts one person\'s tabs once, and labels messages with names', async () => {
    const a = await person('group-room');
    const aTab = await a.tab();
    expect(await groupOk(a.socket, 'group:lobby:join')).toMatchObject({ state: 'waiting', waiting: 1, size: { min: 2, max: 3 } });
    expect(await groupOk(aTab, 'group:lobby:join')).toMatchObject({ state: 'waiting', waiting: 1 });
    const b = await person('group-room');
    expect(await groupOk(b.socket, 'group:lobby:join')).toMatchObject({ state: 'waiting', waiting: 2 });
    const c = await person('group-room');
    const cView = grouped(await groupOk<GroupView>(c.socket, 'group:lobby:join'))!;
    expect(cView.members.map((m) => [m.seat, m.name, m.kind])).toEqual([
      [1, 'Member 1', 'participant'],
      [2, 'Member 2', 'participant'],
      [3, 'Member 3', 'participant'],
      [4, 'Facilitator', 'agent'],
    ]);
    const aView = grouped(await eventually('a grouped', () => a.views.find((v) => v.state === 'grouped')))!;
    expect(aView).toMatchObject({ groupId: cView.groupId, seat: 1, displayName: 'Member 1' });

    const bMessages = collect(b.socket, 'group:message');
    const bDeltas = collect(b.socket, 'group:delta');
    const aTabMessages = collect(aTab, 'group:message');
    await groupOk(a.socket, 'group:send', { groupId: aView.groupId, clientId: 'c1', text: 'Shall we go to the lake?' });
    // A resend is stored once.
    await groupOk(a.socket, 'group:send', { groupId: aView.groupId, clientId: 'c1', text: 'Shall we go to the lake?' });
    const reply = await eventually('the agent replies', () => bMessages.find((m) => m.senderKind === 'agent'), 10_000);
    expect(reply).toMatchObject({ senderName: 'Facilitator', seat: 4, groupSeq: 2 });
    expect(bDeltas.length).toBeGreaterThan(0);
    expect(bDeltas.every((d) => d.senderName === 'Facilitator')).toBe(true);
    const first = bMessages.find((m) => m.groupSeq === 1)!;
    expect(first).toMatchObject({ senderKind: 'participant', senderName: 'Member 1', seat: 1, text: 'Shall we go to the lake?' });
    // The wire never carries a session or platform id.
    expect(JSON.stringify([bMessages, cView])).not.toContain(a.joined.sessionId);
    expect(JSON.stringify([bMessages, cView])).not.toMatch(/p[0-9a-f]{8}/);
    expect(aTabMessages.map((m) => m.groupSeq)).toContain(1);

    // A reload rejoins the room with its history.
    a.socket.disconnect();
    aTab.disconnect();
    const reloaded = await a.tab();
    const again = grouped(await groupOk<GroupView>(reloaded, 'group:status'))!;
    expect(again.messages.map((m) => [m.groupSeq, m.senderName])).toEqual([
      [1, 'Member 1'],
      [2, 'Facilitator'],
    ]);
    const later = collect(reloaded, 'group:message');
    await groupOk(b.socket, 'group:send', { groupId: aView.groupId, clientId: 'b1', text: 'Yes, the lake.' });
    await eventually('the reloaded tab gets new messages', () => later.find((m) => m.senderName === 'Member 2'));
    const events = await t.server.store.groups.listGroupEvents(aView.groupId);
    expect(events.filter((e) => e.type === 'grouped').map((e) => e.sessionId).sort()).toEqual([a.joined.sessionId, b.joined.sessionId, c.joined.sessionId].sort());
  });

  it('refuses to read or post into another group (forged ids) and keeps each room to itself', async () => {
    const groupA = await Promise.all([person('group-room'), person('group-room'), person('group-room')]);
    for (const p of groupA) await groupOk(p.socket, 'group:lobby:join');
    const groupB = await Promise.all([person('group-room'), person('group-room'), person('group-room')]);
    for (const p of groupB) await groupOk(p.socket, 'group:lobby:join');
    const viewA = grouped(await groupOk<GroupView>(groupA[0]!.socket, 'group:status'))!;
    const viewB = grouped(await groupOk<GroupView>(groupB[0]!.socket, 'group:status'))!;
    expect(viewA.groupId).not.toBe(viewB.groupId);
    const intruder = groupA[0]!.socket;
    const seenByIntruder = collect(intruder, 'group:message');
    for (const [event, payload] of [
      ['group:send', { groupId: viewB.groupId, clientId: 'x', text: 'let me in' }],
      ['group:history', { groupId: viewB.groupId, afterSeq: 0 }],
      ['group:typing', { groupId: viewB.groupId, typing: true }],
      ['group:doc:update', { groupId: viewB.groupId, field: 'plan', update: Buffer.from(Y.encodeStateAsUpdate(new Y.Doc())).toString('base64') }],
      ['group:send', { groupId: crypto.randomUUID(), clientId: 'y', text: 'nobody' }],
    ] as const) {
      const reply = await groupCall(intruder, event, payload);
      expect(reply, event).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'groupId' } });
    }
    expect(await groupCall(intruder, 'group:send', { groupId: 'not-a-uuid', clientId: 'z', text: 'x' })).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'groupId' } });
    expect(await t.server.store.groups.listMessages(viewB.groupId)).toEqual([]);
    await groupOk(groupB[0]!.socket, 'group:send', { groupId: viewB.groupId, clientId: 'b', text: 'only for B' });
    await eventually('B\'s agent replies', async () => (await t.server.store.groups.listMessages(viewB.groupId)).length === 2, 10_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(seenByIntruder.filter((m) => m.groupId === viewB.groupId)).toEqual([]);
  });

  it('stores every edit of the shared document and gives it back on reload', async () => {
    const people = await Promise.all([person('group-room'), person('group-room'), person('group-room')]);
    for (const p of people) await groupOk(p.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(people[0]!.socket, 'group:status'))!;
    const docs = people.map(() => new Y.Doc());
    const relayed = collect(people[2]!.socket, 'group:doc');
    const edit = async (i: number, at: number, text: string) => {
      const before = Y.encodeStateVector(docs[i]!);
      docs[i]!.getText('plan').insert(at, text);
      const update = Buffer.from(Y.encodeStateAsUpdate(docs[i]!, before)).toString('base64');
      return groupOk<{ seq: number }>(people[i]!.socket, 'group:doc:update', { groupId: view.groupId, field: 'plan', update });
    };
    await edit(0, 0, 'Lake picnic. ');
    await edit(1, 0, 'Museum at 10. ');
    await eventually('both edits relayed', () => relayed.length === 2);
    for (const r of relayed) Y.applyUpdate(docs[2]!, Buffer.from(r.update, 'base64'));
    expect(await groupCall(people[0]!.socket, 'group:doc:update', { groupId: view.groupId, field: 'plan', update: Buffer.from('not a Yjs update at all').toString('base64') })).toMatchObject({ ok: false, error: { field: 'update' } });
    expect(await groupCall(people[0]!.socket, 'group:doc:update', { groupId: view.groupId, field: 'nope', update: 'AAAA' })).toMatchObject({ ok: false, error: { field: 'field' } });
    const reloaded = grouped(await groupOk<GroupView>(await people[0]!.tab(), 'group:status'))!;
    const rebuilt = new Y.Doc();
    for (const u of reloaded.doc.find((d) => d.field === 'plan')!.updates) Y.applyUpdate(rebuilt, Buffer.from(u, 'base64'));
    expect(rebuilt.getText('plan').toString()).toBe(docs[2]!.getText('plan').toString());
    expect(rebuilt.getText('plan').toString()).toContain('Lake picnic.');
    expect(rebuilt.getText('plan').toString()).toContain('Museum at 10.');
  });

  it('starts a smaller group at the timeout, or releases with the lobby_timeout code and records the wait', async () => {
    const a = await person('group-room');
    const b = await person('group-room');
    await groupOk(a.socket, 'group:lobby:join');
    await groupOk(b.socket, 'group:lobby:join');
    clock += 30_000;
    await t.server.groups.sweep();
    const smaller = grouped(await eventually('a smaller group', () => a.views.find((v) => v.state === 'grouped')))!;
    expect(smaller.members.filter((m) => m.kind === 'participant')).toHaveLength(2);
    expect((await t.server.store.groups.getGroup(smaller.groupId))!.sizeAtStart).toBe(2);

    const alone = await person('group-release');
    await groupOk(alone.socket, 'group:lobby:join');
    clock += 29_000;
    await t.server.groups.sweep();
    expect(await groupOk(alone.socket, 'group:status')).toMatchObject({ state: 'waiting' });
    clock += 1_000;
    await t.server.groups.sweep();
    const released = await eventually('released', () => alone.views.find((v) => v.state === 'released'));
    expect(released).toEqual({ state: 'released', code: 'L0GRP2026', redirectUrl: null, waitedMs: 30_000 });
    const events = await t.server.store.groups.listEvents('group-release');
    expect(events.filter((e) => e.sessionId === alone.joined.sessionId).map((e) => [e.type, e.payload.wait_ms ?? null])).toEqual([
      ['lobby_joined', null],
      ['released', 30_000],
    ]);
    await expectEndedByRelease(alone.joined.sessionId, alone.socket, 'lobby_timeout');
    // A second tab (or a reload) asking the room's state still finds the release.
    expect(await groupOk(await alone.tab(), 'group:status')).toEqual(released);
    const [row] = await exportedSessions('group-release');
    expect([row!.status, row!.lobby_outcome, row!.lobby_wait_ms]).toEqual(['timed_out', 'released', '30000']);
    expect(row!.ended_at).not.toBe('');
  });

  it('records the pending draft of a person released from the workspace step before ending their session', async () => {
    const p = await person('group-release');
    await callOk(p.socket, 'step:advance', { from: 'instructions', clientTs: clock });
    await callOk(p.socket, 'artifact:draft', { fields: { plan: 'Lake' }, baseVersion: 0, clientTs: clock });
    // the second save within the draft event interval is coalesced: only the release records it
    await callOk(p.socket, 'artifact:draft', { fields: { plan: 'Lake picnic' }, baseVersion: 1, clientTs: clock });
    await groupOk(p.socket, 'group:lobby:join');
    clock += 30_000;
    await t.server.groups.sweep();
    expect(await t.server.store.sessions.get(p.joined.sessionId)).toMatchObject({ status: 'timed_out', step: 'complete', endedAt: clock });
    const tail = (await t.server.store.events.listForSession(p.joined.sessionId)).slice(-3);
    expect(tail.map((e) => [e.type, e.payload])).toEqual([
      ['artifact.draft_saved', { fields: { plan: 'Lake picnic' }, version: 2, savedAt: clock - 30_000 }],
      ['step.changed', { from: 'workspace', to: 'complete' }],
      ['session.completed', { outcome: 'timed_out', code: 'L0GRP2026', reason: 'lobby_timeout' }],
    ]);
  });

  it('matches by quota: three experts wait for novices', async () => {
    const experts = [await person('group-quota', { expertise: 'expert' }), await person('group-quota', { expertise: 'expert' })];
    for (const e of experts) await groupOk(e.socket, 'group:lobby:join');
    const stranger = await person('group-quota', { expertise: 'manager' });
    expect(await groupOk(stranger.socket, 'group:lobby:join')).toMatchObject({ state: 'released', code: 'L0GRP2026' });
    await expectEndedByRelease(stranger.joined.sessionId, stranger.socket, 'no_seat');
    const novices = [await person('group-quota', { expertise: 'novice' }), await person('group-quota', { expertise: 'novice' })];
    await groupOk(novices[0]!.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(novices[1]!.socket, 'group:lobby:join'))!;
    const seated = (await t.server.store.groups.listMembers(view.groupId)).flatMap((m) => (m.sessionId ? [m.sessionId] : []));
    // The test's clock stands still, so both experts joined at the same ms: the lobby seats the first to arrive
    // (its arrival number, migration 029). One expert and both novices sit; the other expert still waits.
    const [first, second] = experts;
    expect(seated.sort()).toEqual([first!.joined.sessionId, novices[0]!.joined.sessionId, novices[1]!.joined.sessionId].sort());
    expect(await groupOk(second!.socket, 'group:status')).toMatchObject({ state: 'waiting', waiting: 1 });
  });

  it('drops a member gone past the grace: an agent takes the seat, disclosed; or the group ends', async () => {
    const people = await Promise.all([person('group-room'), person('group-room'), person('group-room')]);
    for (const p of people) await groupOk(p.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(people[0]!.socket, 'group:status'))!;
    const messages = collect(people[0]!.socket, 'group:message');
    const leaver = (await t.server.store.groups.memberBySession(people[2]!.joined.sessionId))!;
    const seatOf = async () => (await t.server.store.groups.listMembers(view.groupId)).find((m) => m.seat === leaver.seat)!;
    people[2]!.socket.disconnect();
    await eventually('away', async () => (await seatOf()).status === 'away');
    clock += 4_000;
    await t.server.groups.sweep();
    expect((await seatOf()).status).toBe('away');
    clock += 1_000;
    await t.server.groups.sweep();
    const name = `AI for Member ${leaver.seat}`;
    expect(await seatOf()).toMatchObject({ kind: 'agent', displayName: name, sessionId: null });
    expect(await eventually('disclosed', () => messages.find((m) => m.senderKind === 'system'))).toMatchObject({ text: expect.stringContaining(`An AI agent, "${name}"`) });
    const types = (await t.server.store.groups.listGroupEvents(view.groupId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['disconnected', 'dropped', 'replaced']));

    const ending = await Promise.all([person('group-end'), person('group-end'), person('group-end')]);
    for (const p of ending) await groupOk(p.socket, 'group:lobby:join');
    const endView = grouped(await groupOk<GroupView>(ending[0]!.socket, 'group:status'))!;
    ending[1]!.socket.disconnect();
    await eventually('away', async () => (await t.server.store.groups.memberBySession(ending[1]!.joined.sessionId))!.status === 'away');
    clock += 5_000;
    await t.server.groups.sweep();
    const ended = await eventually('ended', () => ending[0]!.views.find((v) => v.state === 'grouped' && v.status === 'ended'));
    expect(ended).toMatchObject({ endReason: 'dropout' });
    expect(await groupCall(ending[0]!.socket, 'group:send', { groupId: endView.groupId, clientId: 'late', text: 'hello?' })).toMatchObject({ ok: false, error: { code: 'session_over' } });
  });

  // Last: it moves the clock past the study's time limit.
  it('keeps the timed_out code of a person whose time limit ended the session before the lobby released them', async () => {
    const p = await person('group-release');
    await groupOk(p.socket, 'group:lobby:join');
    clock += 15 * 60_000;
    expect((await callOk(p.socket, 'session:state', {})).completion).toMatchObject({ outcome: 'timed_out', code: 'T0GRP2026' });
    clock += 1_000;
    await t.server.groups.sweep();
    expect((await t.server.store.groups.getLobbyEntry(p.joined.sessionId))!.outcome).toBe('released');
    const after = (await callOk(p.socket, 'session:state', {})).completion;
    expect(after).toMatchObject({ outcome: 'timed_out', code: 'T0GRP2026' });
    expect(after).not.toHaveProperty('lobbyReleased');
    const completed = (await t.server.store.events.listForSession(p.joined.sessionId)).filter((e) => e.type === 'session.completed');
    expect(completed.map((e) => e.payload)).toEqual([{ outcome: 'timed_out', code: 'T0GRP2026' }]);
  });
});
