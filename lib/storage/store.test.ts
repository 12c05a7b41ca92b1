/**
 * The store contract, on every engine (tests/support/testStores.ts): numbering, atomic transactions,
 * exactly-once resends, withdrawal cascades, study status, counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStore } from '../../tests/support/testStores';
import type { MessageRow, Store } from '.';
import { userMessageRow } from './contract/userMessageAck';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const userMessage = (over: Partial<MessageRow> & { clientId?: string } = {}): MessageRow & { clientId: string } => ({
  ...userMessageRow({ id: 'm1', sessionId: 'sess-1', eventSeq: 0, text: 'hi', clientId: 'client-1', tokens: 1, createdAt: 1 }),
  ...over,
});

describe.each(STORE_ENGINES)('store contract (%s)', (engine) => {
  async function store(): Promise<Store> {
    const s = await openTestStore(engine, 'contract');
    stores.push(s);
    return s;
  }
  async function seedSession(s: Store, id = 'sess-1'): Promise<void> {
    await s.studies.upsertLoaded('study', 'A study', 'hash', 'live', 1);
    await s.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });
  }

  it('names its engine and describes itself without a password', async () => {
    const s = await store();
    expect(s.engine).toBe(engine);
    expect(s.description).not.toMatch(/:[^:@/]+@/);
    expect(await s.schemaVersion()).toBeGreaterThanOrEqual(20);
  });

  it('numbers events 1, 2, 3… per session', async () => {
    const s = await store();
    await seedSession(s, 'a');
    await seedSession(s, 'b');
    expect(await s.events.append('a', 'x', { n: 1 }, 10, null)).toBe(1);
    expect(await s.events.append('a', 'y', { n: 2 }, 11, 5)).toBe(2);
    expect(await s.events.append('b', 'x', {}, 12, null)).toBe(1);
    expect(await s.events.listForSession('a')).toEqual([
      { sessionId: 'a', seq: 1, type: 'x', payload: { n: 1 }, serverTs: 10, clientTs: null },
      { sessionId: 'a', seq: 2, type: 'y', payload: { n: 2 }, serverTs: 11, clientTs: 5 },
    ]);
  });

  it('numbers concurrent appends to one session without gaps or duplicates', async () => {
    const s = await store();
    await seedSession(s, 'a');
    const seqs = await Promise.all(Array.from({ length: 25 }, (_, i) => s.events.append('a', 'e', { i }, i, null)));
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('writes an event and its derived row atomically: a failure leaves neither', async () => {
    const s = await store();
    await seedSession(s);
    await s.transaction(async (tx) => {
      const seq = await tx.events.append('sess-1', 'message.user', {}, 1, 1);
      await tx.messages.insert(userMessage({ eventSeq: seq }));
    });
    // Same clientId again: the message insert fails, so the event must not survive either.
    await expect(
      s.transaction(async (tx) => {
        const seq = await tx.events.append('sess-1', 'message.user', {}, 2, 2);
        await tx.messages.insert(userMessage({ id: 'm2', eventSeq: seq }));
      }),
    ).rejects.toThrow();
    expect(await s.events.count('sess-1')).toBe(1);
    expect((await s.messages.listForSession('sess-1')).map((m) => m.id)).toEqual(['m1']);
  });

  it('stores a resend once: insertIfNewClientId lets exactly one of two racing transactions in', async () => {
    const s = await store();
    await seedSession(s);
    const attempt = (id: string) =>
      s
        .transaction(async (tx) => {
          const seq = await tx.events.append('sess-1', 'message.user', { id }, 1, 1);
          if (!(await tx.messages.insertIfNewClientId(userMessage({ id, eventSeq: seq })))) throw new Error('duplicate');
          return 'stored';
        })
        .catch((err: Error) => err.message);
    const outcomes = await Promise.all([attempt('m1'), attempt('m2'), attempt('m3')]);
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(2);
    expect(await s.messages.count('sess-1')).toBe(1);
    expect(await s.events.count('sess-1')).toBe(1);
    const stored = await s.messages.findByClientId('sess-1', 'client-1');
    expect(['m1', 'm2', 'm3']).toContain(stored?.id);
  });

  it('deleting a session (withdrawal) removes all its rows in every table', async () => {
    const s = await store();
    await seedSession(s);
    await s.identities.insert({ sessionId: 'sess-1', studyId: 'study', platform: 'prolific', platformUserId: 'P', platformStudyId: null, platformSessionId: null, urlParams: { PROLIFIC_PID: 'P' }, createdAt: 1 });
    await s.tokens.insert('h', 'sess-1', 1);
    const seq = await s.events.append('sess-1', 'message.user', {}, 1, 1);
    await s.messages.insert(userMessage({ id: 'u', eventSeq: seq, clientId: 'c1' }));
    await s.messages.insert({ ...userMessage({ id: 'r', eventSeq: seq + 1 }), role: 'assistant', clientId: null, replyTo: 'u' });
    await s.artifacts.insertVersion('sess-1', { a: 'b' }, seq, 1);
    expect(await s.withdrawals.findSessionIds('study', ' P ')).toEqual(['sess-1']);
    const deleted = await s.transaction((tx) => tx.withdrawals.deleteSessions(['sess-1']));
    expect(deleted).toBe(1);
    const counts = await s.countRows();
    for (const table of ['sessions', 'identities', 'participant_tokens', 'events', 'messages', 'artifacts'] as const) expect(counts[table], table).toBe(0);
    expect(counts.studies).toBe(1);
  });

  it('writes several replies\' checkpoints in one call, overwriting older ones and skipping withdrawn sessions', async () => {
    const s = await store();
    await seedSession(s, 'a');
    await seedSession(s, 'b');
    const row = (replyId: string, sessionId: string, text: string, at: number) => ({ replyId, sessionId, text, provider: 'p', firstDeltaAt: at, updatedAt: at });
    await s.replyProgress.saveMany([row('r1', 'a', 'Hel', 10), row('r2', 'b', 'Wor', 10)]);
    // The second batch overwrites text and time but keeps firstDeltaAt; a row of a session that is gone is skipped.
    await s.replyProgress.saveMany([row('r1', 'a', 'Hello ‘quoted’ "and" \\ more', 20), row('r3', 'gone', 'x', 20), row('r2', 'b', 'World', 21)]);
    expect(await s.replyProgress.get('r1')).toEqual({ replyId: 'r1', sessionId: 'a', text: 'Hello ‘quoted’ "and" \\ more', provider: 'p', firstDeltaAt: 10, updatedAt: 20 });
    expect(await s.replyProgress.get('r2')).toMatchObject({ text: 'World', firstDeltaAt: 10, updatedAt: 21 });
    expect(await s.replyProgress.get('r3')).toBeUndefined();
    expect(await s.replyProgress.count()).toBe(2);
    await s.replyProgress.saveMany([]);
    expect(await s.replyProgress.count()).toBe(2);
  });

  it('keeps a study status across reloads of its file', async () => {
    const s = await store();
    await s.studies.upsertLoaded('x', 'X', 'h1', 'live', 1);
    await s.studies.setStatus('x', 'closed', 2);
    const again = await s.studies.upsertLoaded('x', 'X v2', 'h2', 'live', 3);
    expect(again).toMatchObject({ status: 'closed', title: 'X v2', definitionHash: 'h2' });
  });

  it('lets the first of several credential inserts win', async () => {
    const s = await store();
    const results = await Promise.all(['a', 'b', 'c'].map((h) => s.adminAuth.insertCredentialIfAbsent(h, 'generated', 1)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(['a', 'b', 'c']).toContain((await s.adminAuth.getCredential())?.passwordHash);
  });

  it("finds a token's session with its whole row, as sessions.get reads it", async () => {
    const s = await store();
    await seedSession(s);
    await s.tokens.insert('hash-1', 'sess-1', 5);
    await s.sessions.update('sess-1', { step: 'instructions', consentVersion: 'v1', consentedAt: 7 }, 8);
    const found = await s.tokens.findSession('hash-1');
    expect(found).toEqual(await s.sessions.get('sess-1'));
    expect(found).toMatchObject({ id: 'sess-1', studyId: 'study', conditionId: 'c', step: 'instructions', status: 'active', consentedAt: 7, createdAt: 1 });
    expect(await s.tokens.findSession('no-such-hash')).toBeUndefined();
  });

  it('counts what tests ask about without SQL', async () => {
    const s = await store();
    await seedSession(s);
    await s.tokens.insert('hash-1', 'sess-1', 5);
    await s.identities.insert({ sessionId: 'sess-1', studyId: 'study', platform: 'prolific', platformUserId: 'P', platformStudyId: null, platformSessionId: null, urlParams: {}, createdAt: 1 });
    expect(await s.sessions.count()).toBe(1);
    expect(await s.sessions.count('other')).toBe(0);
    expect(await s.tokens.listAll()).toEqual([{ tokenHash: 'hash-1', sessionId: 'sess-1', createdAt: 5 }]);
    expect(await s.identities.countByPlatformUserId('P')).toBe(1);
    expect(await s.uploads.count()).toBe(0);
  });
});
