import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWorkspaceSession, openTestStore, STORE_ENGINES } from '../../tests/support/testStores';
import type { Store } from '.';
import { userMessageRow, type UserMessageAck } from './contract/userMessageAck';

const MINUTE = 60_000;
const CONSENTED = 10_000;
const OWNER = { node: 'node-test', incarnation: 'run-1' };

/** A chat message's acknowledgement as services/chat.ts asks for it (overrides per test). */
function ack(sessionId: string, clientId: string, over: Partial<UserMessageAck> = {}): UserMessageAck {
  const messageId = crypto.randomUUID();
  const text = over.text ?? `hello ${clientId}`;
  return {
    sessionId,
    messageId,
    clientId,
    text,
    tokens: 2,
    now: CONSENTED + MINUTE,
    clientTs: 42,
    messageEvent: { type: 'message.user', payload: { messageId, clientId, text } },
    followingEvent: { type: 'reply.started', payload: { replyId: `r-${messageId}`, replyTo: messageId } },
    step: 'workspace',
    timeLimitMs: 30 * MINUTE,
    maxUserMessages: 10,
    budgetBytes: 1_000_000,
    addedBytes: 2 * Buffer.byteLength(text),
    lease: { replyId: `r-${messageId}`, owner: OWNER },
    ...over,
  };
}

describe.each(STORE_ENGINES)('Store.acknowledgeUserMessage (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'user-message-ack');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  const workspaceSession = () => insertWorkspaceSession(store, 'study', CONSENTED);

  it('stores the message between its event and the following one, and counts their bytes against the budget', async () => {
    const id = await workspaceSession();
    await store.events.append(id, 'step.changed', { to: 'workspace' }, CONSENTED, null);
    const before = await store.sessions.storageBytes(id);
    const a = ack(id, 'c1');
    const r = await store.acknowledgeUserMessage(a);
    expect(r.outcome).toBe('stored');
    if (r.outcome !== 'stored') return;
    expect(r.session.id).toBe(id);
    expect(r.message).toMatchObject({ id: a.messageId, sessionId: id, eventSeq: 2, role: 'user', text: a.text, clientId: 'c1', replyTo: null, status: 'complete', tokens: 2, createdAt: a.now });
    expect(await store.messages.get(a.messageId)).toEqual(r.message);
    const events = await store.events.listForSession(id);
    expect(events.map((e) => [e.seq, e.type, e.serverTs, e.clientTs])).toEqual([
      [1, 'step.changed', CONSENTED, null],
      [2, 'message.user', a.now, 42],
      [3, 'reply.started', a.now, null],
    ]);
    expect(events[1]!.payload).toEqual(a.messageEvent.payload);
    expect(events[2]!.payload).toEqual(a.followingEvent.payload);
    const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
    expect(await store.sessions.storageBytes(id)).toBe(before + bytes(a.messageEvent.payload) + Buffer.byteLength(a.text) + bytes(a.followingEvent.payload));
  });

  it('answers a resend with the stored message and writes nothing, even after the session ended', async () => {
    const id = await workspaceSession();
    const first = await store.acknowledgeUserMessage(ack(id, 'c1'));
    await store.sessions.update(id, { status: 'completed', step: 'complete' }, CONSENTED + 2 * MINUTE);
    const again = await store.acknowledgeUserMessage(ack(id, 'c1', { text: 'other words' }));
    expect(again.outcome).toBe('duplicate');
    if (first.outcome !== 'stored' || again.outcome !== 'duplicate') return;
    expect(again.message).toEqual(first.message);
    expect(await store.events.count(id)).toBe(2);
    expect(await store.messages.count(id)).toBe(1);
  });

  it('refuses, naming why and storing nothing: over, past the deadline, wrong step, message limit, storage budget', async () => {
    expect(await store.acknowledgeUserMessage(ack('no-such-session', 'c'))).toEqual({ outcome: 'not_found' });

    const ended = await workspaceSession();
    await store.sessions.update(ended, { status: 'declined' }, CONSENTED);
    const overdue = await workspaceSession();
    const survey = await workspaceSession();
    await store.sessions.update(survey, { step: 'survey' }, CONSENTED);
    const full = await workspaceSession();
    const first = ack(full, 'first');
    await store.acknowledgeUserMessage(first);
    // Its reply ended (stored with its outcome, which releases the lease): the session takes messages again.
    expect(await store.replyLeases.release(first.lease.replyId)).toBe(true);
    const used = await store.sessions.storageBytes(full);
    const cases: Array<[string, UserMessageAck, string]> = [
      [ended, ack(ended, 'c'), 'ended'],
      [overdue, ack(overdue, 'c', { now: CONSENTED + 30 * MINUTE }), 'overdue'],
      [survey, ack(survey, 'c'), 'wrong_step'],
      [full, ack(full, 'c', { maxUserMessages: 1 }), 'limit_reached'],
      [full, ack(full, 'c', { budgetBytes: used + 10, addedBytes: 11 }), 'storage_full'],
    ];
    for (const [id, a, reason] of cases) {
      const events = await store.events.count(id);
      const r = await store.acknowledgeUserMessage(a);
      expect(r, reason).toMatchObject({ outcome: 'refused', reason, session: { id } });
      if (r.outcome === 'refused') expect(r.storedBytes).toBe(await store.sessions.storageBytes(id));
      expect(await store.events.count(id)).toBe(events);
    }
    // Exactly at the budget, and one minute before the deadline, the message goes in.
    expect((await store.acknowledgeUserMessage(ack(full, 'c', { budgetBytes: used + 10, addedBytes: 10 }))).outcome).toBe('stored');
    expect((await store.acknowledgeUserMessage(ack(overdue, 'c', { now: CONSENTED + 29 * MINUTE }))).outcome).toBe('stored');
  });

  it('of many racing sends, exactly one starts a reply: its resends answer duplicate, every other message busy, nothing else written', async () => {
    const id = await workspaceSession();
    const sends = Array.from({ length: 24 }, (_, i) => ack(id, `c${i % 8}`));
    const results = await Promise.all(sends.map((a) => store.acknowledgeUserMessage(a)));
    const stored = results.flatMap((r, i) => (r.outcome === 'stored' ? [sends[i]!] : []));
    expect(stored).toHaveLength(1);
    const winner = stored[0]!.clientId;
    // The winner's other two sends come after it under the session lock: the resend check answers them first.
    expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(2);
    expect(results.filter((r) => r.outcome === 'refused' && r.reason === 'busy')).toHaveLength(21);
    for (const [i, r] of results.entries()) if (r.outcome === 'duplicate') expect(sends[i]!.clientId).toBe(winner);
    expect(await store.replyLeases.getBySession(id)).toMatchObject({ replyId: stored[0]!.lease.replyId, replyTo: stored[0]!.messageId, ownerNode: OWNER.node });
    expect((await store.events.listForSession(id)).map((e) => [e.seq, e.type])).toEqual([[1, 'message.user'], [2, 'reply.started']]);
    expect(await store.messages.count(id)).toBe(1);
  });

  it('stores one message per reply, seq 1…n without gaps, as each reply ends and releases its lease', async () => {
    const id = await workspaceSession();
    for (let i = 0; i < 4; i++) {
      const a = ack(id, `n${i}`);
      expect((await store.acknowledgeUserMessage(a)).outcome).toBe('stored');
      expect((await store.acknowledgeUserMessage(ack(id, `n${i}-next`))).outcome).toBe('refused');
      await store.replyLeases.release(a.lease.replyId);
    }
    expect((await store.events.listForSession(id)).map((e) => e.seq)).toEqual(Array.from({ length: 8 }, (_, i) => i + 1));
  });
});

describe.skipIf(!STORE_ENGINES.includes('postgres'))('Store.acknowledgeUserMessage (postgres): the unique (session, clientId) decides', () => {
  it('answers duplicate, and keeps no event of its own, when a writer that did not lock the session stored the same clientId first', async () => {
    const store = await openTestStore('postgres', 'user-message-ack-unique');
    try {
      await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
      const id = crypto.randomUUID();
      await store.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 5_000 });
      await store.sessions.update(id, { step: 'workspace', consentedAt: CONSENTED }, CONSENTED);
      const a = ack(id, 'same');
      let racing!: Promise<unknown>;
      let winner = '';
      await store.transaction(async (tx) => {
        // Inserted (uncommitted, no session lock); the ack runs meanwhile on another connection and waits on the index entry.
        const row = userMessageRow({ id: crypto.randomUUID(), sessionId: id, eventSeq: 1, text: 'first', clientId: 'same', tokens: 1, createdAt: 6_000 });
        winner = row.id;
        expect(await tx.messages.insertIfNewClientId(row)).toBe(true);
        racing = store.interactive.acknowledgeUserMessage(a);
        await new Promise((r) => setTimeout(r, 300));
      });
      const r = await racing;
      expect(r).toMatchObject({ outcome: 'duplicate', message: { id: winner } });
      expect(await store.events.count(id)).toBe(0);
      expect(await store.messages.count(id)).toBe(1);
    } finally {
      await store.close();
    }
  });
});
