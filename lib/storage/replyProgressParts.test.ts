/**
 * A streaming reply's crash checkpoint in parts (migration 034), on every engine: the first write holds the text so
 * far, each later one appends what streamed since, and get() joins them; a whole text written again drops the earlier
 * parts; a part of a reply without a checkpoint (stored or withdrawn meanwhile) is skipped; a part after a gap is not
 * joined; deleting the checkpoint (the reply stored) or the session (withdrawn) takes its parts too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStoreWithSessions } from '../../tests/support/testStores';
import type { ReplyProgressWrite, Store } from './index';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe.each(STORE_ENGINES)('reply checkpoints in parts (%s)', (engine) => {
  async function storeWithSession(): Promise<Store> {
    const s = await openTestStoreWithSessions(engine, 'progress-parts', ['s1']);
    stores.push(s);
    return s;
  }
  const row = (text: string, textFrom: number, updatedAt: number, replyId = 'r1'): ReplyProgressWrite => ({
    replyId, sessionId: 's1', text, textFrom, provider: 'p', firstDeltaAt: 5, updatedAt,
  });

  it('joins the first write and the later parts in order, drops them when the whole text is written again', async () => {
    const store = await storeWithSession();
    await store.replyProgress.saveMany([row('Hello', 0, 10)]);
    await store.replyProgress.saveMany([row(', wor', 5, 20)]);
    // A retry of the same part with more text replaces it.
    await store.replyProgress.saveMany([row(', world', 5, 25)]);
    await store.replyProgress.saveMany([row('!', 12, 30)]);
    expect(await store.replyProgress.get('r1')).toEqual({ replyId: 'r1', sessionId: 's1', text: 'Hello, world!', provider: 'p', firstDeltaAt: 5, updatedAt: 30 });

    // The whole text written again (a reply resumed under the same id): the old parts must not join it.
    await store.replyProgress.saveMany([row('Hi', 0, 40)]);
    expect((await store.replyProgress.get('r1'))?.text).toBe('Hi');
    expect((await store.replyProgress.get('r1'))?.updatedAt).toBe(40);
    expect(await store.replyProgress.count()).toBe(1);
    expect((await store.countRows()).reply_progress_parts).toBe(0);
  });

  it('skips a part of a reply without a checkpoint, does not join a part after a gap, and deletes the parts with the row', async () => {
    const store = await storeWithSession();
    await store.replyProgress.saveMany([row('orphan', 4, 10, 'r-none')]);
    expect(await store.replyProgress.get('r-none')).toBeUndefined();
    expect(await store.replyProgress.count()).toBe(0);

    await store.replyProgress.saveMany([row('abc', 0, 10), row('first', 0, 10, 'r2')]);
    await store.replyProgress.saveMany([row('xyz', 9, 20), row(' part', 5, 20, 'r2')]);
    expect((await store.replyProgress.get('r1'))?.text).toBe('abc');
    expect((await store.replyProgress.get('r1'))?.updatedAt).toBe(10);
    expect((await store.replyProgress.get('r2'))?.text).toBe('first part');

    expect((await store.countRows()).reply_progress_parts).toBe(2);
    // The reply stored (its checkpoint deleted): its part goes with it, r1's (after a gap, never joined) stays with r1.
    await store.replyProgress.delete('r2');
    expect(await store.replyProgress.get('r2')).toBeUndefined();
    expect((await store.countRows()).reply_progress_parts).toBe(1);
    // A withdrawn session takes its checkpoints and their parts.
    await store.transaction((tx) => tx.withdrawals.deleteSessions(['s1']));
    expect(await store.replyProgress.count()).toBe(0);
    expect((await store.countRows()).reply_progress_parts).toBe(0);
  });
});
