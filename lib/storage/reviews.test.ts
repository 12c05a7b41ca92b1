import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStoreWithSessions } from '../../tests/support/testStores';
import type { Store } from '.';
import type { DraftMeta, ReviewResolution } from './contract/reviews';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const meta: DraftMeta = {
  provider: 'openai',
  providerUrl: 'http://127.0.0.1:1/v1',
  model: 'gpt-test',
  usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 },
  ttftMs: 12,
  durationMs: 30,
  finishReason: 'stop',
  attempts: 1,
  systemFingerprint: null,
  error: null,
};

const sent = (actor: string | null, at = 50): ReviewResolution => ({
  state: 'sent',
  actor,
  finalText: 'Hello there',
  origin: 'model_edited',
  editDistance: 6,
  diff: '--- model draft\n+++ sent\n',
  waitMs: at - 10,
  at,
});

describe.each(STORE_ENGINES)('reply reviews (%s)', (engine) => {
  async function store(): Promise<Store> {
    const s = await openTestStoreWithSessions(engine, 'reviews', ['sess-1']);
    stores.push(s);
    return s;
  }
  const open = (s: Store, replyId = 'r1', createdAt = 10) =>
    s.reviews.insertIfAbsent({ replyId, sessionId: 'sess-1', studyId: 'study', replyTo: 'u1', mode: 'review', createdAt, deadlineAt: createdAt + 90_000 });

  it('opens a review once, keeps the draft and its cost, and lists open reviews oldest first', async () => {
    const s = await store();
    expect(await open(s, 'r2', 20)).toBe(true);
    expect(await open(s, 'r1', 10)).toBe(true);
    expect(await open(s, 'r1', 99)).toBe(false);
    expect(await s.reviews.saveDraft('r1', 'Hello', meta, 15)).toBe(true);
    const r1 = await s.reviews.get('r1');
    expect(r1).toMatchObject({ state: 'waiting', draftText: 'Hello', draftMeta: meta, createdAt: 10, deadlineAt: 90_010, claimedBy: null, origin: null });
    expect((await s.reviews.listOpen('study')).map((r) => r.replyId)).toEqual(['r1', 'r2']);
    expect((await s.reviews.listOpen()).map((r) => r.replyId)).toEqual(['r1', 'r2']);
    expect(await s.reviews.listOpen('other')).toEqual([]);
  });

  it('lets one researcher at a time hold the claim, and only the holder (or the timeout) resolve a claimed review', async () => {
    const s = await store();
    await open(s);
    expect((await s.reviews.claim('r1', 'alice', 20))?.claimedBy).toBe('alice');
    const second = await s.reviews.claim('r1', 'bob', 21);
    expect(second).toMatchObject({ state: 'claimed', claimedBy: 'alice', claimedAt: 20 });
    expect(await s.reviews.release('r1', 'bob', 22)).toBe(false);
    expect(await s.reviews.resolve('r1', sent('bob'))).toBe(false);
    expect(await s.reviews.resolve('r1', sent('alice'))).toBe(true);
    // Exactly once: a second resolution (the timeout racing the send) changes nothing.
    expect(await s.reviews.resolve('r1', { ...sent(null, 60), state: 'fallback', origin: 'fallback' })).toBe(false);
    expect(await s.reviews.get('r1')).toMatchObject({ state: 'sent', claimedBy: 'alice', origin: 'model_edited', editDistance: 6, waitMs: 40, resolvedAt: 50, finalText: 'Hello there' });
    expect(await s.reviews.saveDraft('r1', 'late draft', meta, 70)).toBe(false);
    expect(await s.reviews.listOpen()).toEqual([]);
  });

  it('releases a claim back to waiting, and the timeout (no actor) overrides a claim', async () => {
    const s = await store();
    await open(s);
    await s.reviews.claim('r1', 'alice', 20);
    expect(await s.reviews.release('r1', 'alice', 21)).toBe(true);
    expect(await s.reviews.get('r1')).toMatchObject({ state: 'waiting', claimedBy: null });
    expect((await s.reviews.claim('r1', 'bob', 22))?.claimedBy).toBe('bob');
    expect(await s.reviews.resolve('r1', { ...sent(null), state: 'fallback', origin: 'fallback' })).toBe(true);
    expect(await s.reviews.get('r1')).toMatchObject({ state: 'fallback', origin: 'fallback', claimedBy: 'bob' });
  });

  it('rolls the resolution back with its transaction, and deletes reviews with their session', async () => {
    const s = await store();
    await open(s);
    await expect(
      s.transaction(async (tx) => {
        expect(await tx.reviews.resolve('r1', sent(null))).toBe(true);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await s.reviews.get('r1'))?.state).toBe('waiting');
    await s.transaction((tx) => tx.withdrawals.deleteSessions(['sess-1']));
    expect(await s.reviews.get('r1')).toBeUndefined();
    expect((await s.countRows()).reply_reviews).toBe(0);
  });
});
