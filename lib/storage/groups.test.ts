import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { Store } from '.';

const T0 = 1_000_000;

describe.each(STORE_ENGINES)('group storage (%s)', (engine) => {
  let store: Store;
  const sessions: string[] = [];
  beforeAll(async () => {
    store = await openTestStore(engine, 'groups');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', T0);
    for (let i = 0; i < 6; i++) {
      const id = crypto.randomUUID();
      await store.sessions.insert({ id, studyId: 'study', taskId: 'task', conditionId: 'cond', isPilot: false, createdAt: T0 });
      sessions.push(id);
    }
  });
  afterAll(() => store?.close());

  const newGroup = async (id = crypto.randomUUID()) => {
    await store.groups.createGroup({ id, studyId: 'study', conditionId: 'cond', taskId: 'task', sizeAtStart: 2, agents: ['Facilitator'], formedAt: T0 });
    return id;
  };

  it('keeps one lobby entry per session and settles each once', async () => {
    const entry = { studyId: 'study', conditionId: 'cond', taskId: 'task', quotaValue: null, deadlineAt: T0 + 30_000 };
    const first = await store.groups.joinLobby({ ...entry, sessionId: sessions[0]!, joinedAt: T0 });
    const again = await store.groups.joinLobby({ ...entry, sessionId: sessions[0]!, joinedAt: T0 + 5_000 });
    expect(first.created).toBe(true);
    expect(again).toEqual({ created: false, entry: first.entry });
    await store.groups.joinLobby({ ...entry, sessionId: sessions[1]!, joinedAt: T0 + 1_000, deadlineAt: T0 + 31_000 });
    expect((await store.groups.listWaiting('study', 'cond', 'task')).map((e) => e.sessionId)).toEqual([sessions[0], sessions[1]]);
    expect((await store.groups.listDueLobby(T0 + 30_000)).map((e) => e.sessionId)).toEqual([sessions[0]]);
    expect(await store.groups.settleLobby([sessions[0]!], 'released', T0 + 30_000, null)).toBe(1);
    expect(await store.groups.settleLobby([sessions[0]!, sessions[1]!], 'left', T0 + 40_000, null)).toBe(1);
    expect(await store.groups.getLobbyEntry(sessions[0]!)).toMatchObject({ outcome: 'released', outcomeAt: T0 + 30_000, groupId: null });
    expect(await store.groups.listWaiting('study', 'cond', 'task')).toEqual([]);
  });

  it('numbers a lobby\'s arrivals in the order they joined, also within one millisecond', async () => {
    // Same joined_at for all; the larger session id joins first, so an order by (joined_at, session_id) would differ.
    const [low, high] = [sessions[4]!, sessions[5]!].sort();
    const entry = { studyId: 'study', conditionId: 'cond-same-ms', taskId: 'task', quotaValue: null, joinedAt: T0, deadlineAt: T0 + 30_000 };
    const first = await store.transaction(async (tx) => {
      await tx.groups.lockLobby('study/cond-same-ms/task');
      return tx.groups.joinLobby({ ...entry, sessionId: high! });
    });
    const second = await store.groups.joinLobby({ ...entry, sessionId: low! });
    // Another lobby numbers its own arrivals from 1.
    const elsewhere = await store.groups.joinLobby({ ...entry, conditionId: 'cond-other', sessionId: sessions[3]! });
    expect([first.entry.arrivalSeq, second.entry.arrivalSeq, elsewhere.entry.arrivalSeq]).toEqual([1, 2, 1]);
    expect((await store.groups.listWaiting('study', 'cond-same-ms', 'task')).map((e) => e.sessionId)).toEqual([high, low]);
    // A second join of the same session keeps its number.
    expect((await store.groups.joinLobby({ ...entry, sessionId: high!, joinedAt: T0 + 1 })).entry.arrivalSeq).toBe(1);
    await store.groups.settleLobby([high!, low!, sessions[3]!], 'left', T0 + 1, null);
  });

  it('fills a seat once and puts a person in one group only', async () => {
    const a = await newGroup();
    const b = await newGroup();
    const seat = (groupId: string, n: number, sessionId: string) =>
      store.groups.addMember({ groupId, seat: n, kind: 'participant', sessionId, displayName: `Member ${n}`, status: 'present', joinedAt: T0 });
    await seat(a, 1, sessions[2]!);
    await expect(seat(a, 1, sessions[3]!)).rejects.toThrow();
    await expect(seat(b, 1, sessions[2]!)).rejects.toThrow();
    await seat(a, 2, sessions[3]!);
    await store.groups.addMember({ groupId: a, seat: 3, kind: 'agent', sessionId: null, displayName: 'Facilitator', status: 'present', joinedAt: T0 });
    expect((await store.groups.listMembers(a)).map((m) => [m.seat, m.kind, m.displayName])).toEqual([
      [1, 'participant', 'Member 1'],
      [2, 'participant', 'Member 2'],
      [3, 'agent', 'Facilitator'],
    ]);
    await store.groups.setMemberStatus(a, 2, 'away', T0 + 10);
    await store.groups.setMemberStatus(a, 2, 'away', T0 + 20);
    expect(await store.groups.memberBySession(sessions[3]!)).toMatchObject({ status: 'away', awaySince: T0 + 10, leftAt: null });
    await store.groups.setMemberStatus(a, 2, 'dropped', T0 + 30);
    await store.groups.replaceMemberWithAgent(a, 2, 'Stand-in', T0 + 31);
    expect(await store.groups.memberBySession(sessions[3]!)).toBeUndefined();
    expect((await store.groups.listMembers(a))[1]).toMatchObject({ kind: 'agent', displayName: 'Stand-in', sessionId: null, status: 'present' });
    expect(await store.groups.endGroup(a, 'submitted', T0 + 99)).toBe(true);
    expect(await store.groups.endGroup(a, 'again', T0 + 100)).toBe(false);
    expect(await store.groups.getGroup(a)).toMatchObject({ status: 'ended', endReason: 'submitted', endedAt: T0 + 99, agents: ['Facilitator'] });
  });

  it('numbers concurrent messages 1…n without gaps and stores a resend once', async () => {
    const g = await newGroup();
    const send = (i: number, clientId: string | null, sessionId: string | null) =>
      store.groups.appendMessage({
        id: crypto.randomUUID(),
        groupId: g,
        senderKind: sessionId ? 'participant' : 'agent',
        sessionId,
        senderName: sessionId ? 'Member 1' : 'Facilitator',
        clientId,
        content: `m${i}`,
        tokens: 1,
        createdAt: T0 + i,
      });
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => send(i, `c${i}`, sessions[4]!)),
      ...Array.from({ length: 5 }, (_, i) => send(100 + i, null, null)),
      send(999, 'c3', sessions[4]!),
    ]);
    expect(results.filter((r) => !r.inserted)).toHaveLength(1);
    const stored = await store.groups.listMessages(g);
    expect(stored.map((m) => m.groupSeq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(stored.filter((m) => m.clientId === 'c3')).toHaveLength(1);
    expect((await store.groups.listMessages(g, 20)).map((m) => m.groupSeq)).toEqual([21, 22, 23, 24, 25]);
    expect(await store.groups.countMemberMessages(sessions[4]!)).toBe(20);
  });

  it('stores every document update in order and keeps the bytes of a deleted session', async () => {
    const g = await newGroup();
    const seqs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.groups.appendDocUpdate({ groupId: g, sessionId: sessions[5]!, fieldId: 'plan', update: Buffer.from([i]).toString('base64'), createdAt: T0 + i }),
      ),
    );
    expect([...seqs].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await store.groups.countMemberDocUpdates(sessions[5]!)).toBe(10);
    const updates = await store.groups.listDocUpdates(g);
    expect(updates.map((u) => u.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await store.groups.appendEvent({ studyId: 'study', groupId: g, sessionId: sessions[5]!, type: 'dropped', serverTs: T0, payload: { grace_ms: 30_000 } });
    expect(await store.groups.listGroupEvents(g)).toMatchObject([{ type: 'dropped', payload: { grace_ms: 30_000 }, sessionId: sessions[5] }]);
  });

  it('withdraws a person whose seat an agent took over, and one who only waited, leaving no event of theirs', async () => {
    const fresh = async () => {
      const id = crypto.randomUUID();
      await store.sessions.insert({ id, studyId: 'study', taskId: 'task', conditionId: 'cond', isPilot: false, createdAt: T0 });
      return id;
    };
    const [stays, replaced, waited] = [await fresh(), await fresh(), await fresh()];
    const g = await newGroup();
    await store.groups.addMember({ groupId: g, seat: 1, kind: 'participant', sessionId: stays, displayName: 'Member 1', status: 'present', joinedAt: T0 });
    await store.groups.addMember({ groupId: g, seat: 2, kind: 'participant', sessionId: replaced, displayName: 'Member 2', status: 'present', joinedAt: T0 });
    const say = (sessionId: string, clientId: string) =>
      store.groups.appendMessage({ id: crypto.randomUUID(), groupId: g, senderKind: 'participant', sessionId, senderName: 'x', clientId, content: clientId, tokens: 1, createdAt: T0 });
    await say(stays, 's1');
    await say(replaced, 'r1');
    await say(stays, 's2');
    for (const [sessionId, type] of [[replaced, 'dropped'], [replaced, 'replaced'], [stays, 'grouped']] as const)
      await store.groups.appendEvent({ studyId: 'study', groupId: g, sessionId, type, serverTs: T0, payload: {} });
    await store.groups.replaceMemberWithAgent(g, 2, 'AI for Member 2', T0 + 1);
    await store.groups.appendEvent({ studyId: 'study', groupId: null, sessionId: waited, type: 'lobby_joined', serverTs: T0, payload: {} });

    expect(await store.transaction((tx) => tx.withdrawals.deleteSessions([replaced, waited], T0 + 5))).toBe(2);
    expect((await store.groups.listMessages(g)).map((m) => [m.groupSeq, m.content])).toEqual([
      [1, 's1'],
      [3, 's2'],
    ]);
    const events = await store.groups.listEvents('study');
    expect(events.some((e) => e.sessionId === replaced || e.sessionId === waited)).toBe(false);
    // The seat is the agent's now (the person no longer held it): the tombstone names no seat.
    expect(events.filter((e) => e.groupId === g).map((e) => [e.type, e.sessionId, e.payload])).toEqual([
      ['grouped', stays, {}],
      ['withdrawn', null, { seat: null, messages_removed: 1, edits_removed: 0, chars_removed: 0, events_removed: 2 }],
    ]);
    expect((await store.groups.listMembers(g)).map((m) => [m.seat, m.kind, m.status])).toEqual([
      [1, 'participant', 'present'],
      [2, 'agent', 'present'],
    ]);
  });

  it('lets one matching decision hold a lobby at a time', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = store.transaction(async (tx) => {
      await tx.groups.lockLobby('study/cond/task');
      order.push('first in');
      await held;
      order.push('first out');
    });
    await new Promise((r) => setTimeout(r, 50));
    const second = store.transaction(async (tx) => {
      await tx.groups.lockLobby('study/cond/task');
      order.push('second in');
    });
    await new Promise((r) => setTimeout(r, 100));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });
});
