/**
 * Crash checkpoints of streaming replies (ReplyCheckpoints) on every engine: the due checkpoints of all
 * replies go to the store together, a short reply writes none, maxChars writes early, and close() waits for
 * a write in flight so that it cannot re-create a row the reply's transaction deletes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStoreWithSessions } from '../../tests/support/testStores';
import type { Store } from '../../lib/storage';
import { createLogger } from '../../lib/logger';
import { ReplyCheckpoints } from './replyCheckpoint';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = createLogger('silent');

describe.each(STORE_ENGINES)('reply checkpoints (%s)', (engine) => {
  async function storeWithSessions(n: number): Promise<Store> {
    const s = await openTestStoreWithSessions(engine, 'checkpoints', Array.from({ length: n }, (_, i) => `s${i}`));
    stores.push(s);
    return s;
  }

  it('writes the due checkpoints of many streaming replies in a few batches, each reply its latest text', async () => {
    const store = await storeWithSessions(20);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 100, maxChars: Number.POSITIVE_INFINITY });
    const texts = Array.from({ length: 20 }, () => '');
    const replies = texts.map((_, i) => checkpoints.track({ replyId: `r${i}`, sessionId: `s${i}`, provider: 'p' }, () => texts[i]!));
    for (let tick = 0; tick < 30; tick++) {
      texts.forEach((_, i) => (texts[i] += ` w${tick}`));
      replies.forEach((r) => r.onText());
      await sleep(10);
    }
    await sleep(250);
    // This instance's counters: the process-wide ones also count any other checkpointing in this worker.
    const { writes, batches } = checkpoints.stats;
    // ~300 ms of text at a 100 ms interval: every reply is written a few times, all replies together per batch.
    expect(writes).toBeGreaterThanOrEqual(20);
    expect(batches).toBeGreaterThanOrEqual(1);
    // Not 1 (a write per reply). 20 when the replies stay in one phase. A tick that lands between two replies' due
    // times (set in one loop, so microseconds apart, or a GC pause apart on a loaded machine) splits them into
    // phases that keep their own times: a phase of 1 reply written w + 1 times beside one of 19 written w times gives
    // (20w + 1) / (2w + 1), 8.7 at w = 3 (a clean-clone CI run, 2026-12-07: 61 writes in 7 batches); three phases
    // (1, 1, 18) give (20w + 2) / (3w + 2), 5.6 at w = 3. A batch per reply could not reach 5.
    expect(writes / batches).toBeGreaterThanOrEqual(5);
    for (let i = 0; i < 20; i++) expect((await store.replyProgress.get(`r${i}`))!.text).toBe(texts[i]);
    await Promise.all(replies.map((r) => r.close()));
    checkpoints.stop();
  });

  it("writes a reply's text once: its first checkpoint the text so far, each later one a part with only what is new", async () => {
    const store = await storeWithSessions(1);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 20, maxChars: Number.POSITIVE_INFINITY });
    let text = '';
    const reply = checkpoints.track({ replyId: 'long', sessionId: 's0', provider: 'p' }, () => text);
    for (let i = 0; i < 5; i++) {
      text += ` chunk ${i}`.repeat(50);
      reply.onText();
      await sleep(60);
    }
    const { writes } = checkpoints.stats;
    // Five growths 60 ms apart at a 20 ms interval: a write after most of them (two may share one on a slow machine).
    expect(writes).toBeGreaterThanOrEqual(2);
    expect((await store.replyProgress.get('long'))?.text).toBe(text);
    // One row for the reply, and a part for every write after its first (one write of each part).
    expect(await store.replyProgress.count()).toBe(1);
    expect((await store.countRows()).reply_progress_parts).toBe(writes - 1);
    await reply.close();
    checkpoints.stop();
  });

  it('one bad row never fails the batch, and its retries back off while its text keeps growing', async () => {
    const store = await storeWithSessions(4);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 50, maxChars: 20 });
    // Reply 3's text holds a NUL, which PostgreSQL refuses in text (the audit's case; the chat service drops NUL
    // from model text before it gets here, server/services/textBoundary.ts); SQLite stores it.
    const texts = ['', '', '', '\u0000', ''];
    const replies = texts.map((_, i) => checkpoints.track({ replyId: `r${i}`, sessionId: `s${i % 4}`, provider: 'p' }, () => texts[i]!));
    for (let tick = 0; tick < 100; tick++) {
      texts.forEach((_, i) => (texts[i] += ` word${tick}`));
      replies.forEach((r) => r.onText());
      await sleep(10);
    }
    await sleep(200);
    for (const i of [0, 1, 2, 4]) expect((await store.replyProgress.get(`r${i}`))?.text, `reply ${i}`).toBe(texts[i]);
    const failures = checkpoints.stats.failures;
    if (engine === 'postgres') {
      expect(await store.replyProgress.get('r3')).toBeUndefined();
      // ~1.2 s of a bad reply that is always past maxChars: backing off 100, 200, 400, 800 ms gives a handful of
      // failed writes (without backoff, one per batch: ~100).
      expect(failures).toBeGreaterThanOrEqual(2);
      expect(failures).toBeLessThanOrEqual(8);
    } else {
      expect((await store.replyProgress.get('r3'))?.text).toBe(texts[3]);
      expect(failures).toBe(0);
    }
    await Promise.all(replies.map((r) => r.close()));
    checkpoints.stop();
  });

  it('leaves half of a surrogate pair (the other half still to stream) for the next part, and a lone one from the model as U+FFFD', async () => {
    const store = await storeWithSessions(2);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 20, maxChars: Number.POSITIVE_INFINITY });
    const texts = ['Smile \ud83d', 'plain'];
    const replies = texts.map((_, i) => checkpoints.track({ replyId: `h${i}`, sessionId: `s${i}`, provider: 'p' }, () => texts[i]!));
    replies.forEach((r) => r.onText());
    await sleep(150);
    expect(checkpoints.stats.failures).toBe(0);
    expect((await store.replyProgress.get('h0'))?.text).toBe('Smile ');
    expect((await store.replyProgress.get('h1'))?.text).toBe('plain');
    // The pair completes in the next part: the checkpoint reads back whole, not with a U+FFFD where it was cut.
    texts[0] += '\ude00 and';
    // A lone low surrogate (a model's broken text) is stored as U+FFFD, one code unit for one: later parts still join.
    texts[1] += ' \udc00 x';
    replies.forEach((r) => r.onText());
    await sleep(150);
    texts[1] += ' y';
    replies[1]!.onText();
    await sleep(150);
    expect(checkpoints.stats.failures).toBe(0);
    expect((await store.replyProgress.get('h0'))?.text).toBe('Smile \ud83d\ude00 and');
    expect((await store.replyProgress.get('h1'))?.text).toBe('plain \ufffd x y');
    await Promise.all(replies.map((r) => r.close()));
    checkpoints.stop();
  });

  it('writes nothing for a reply that ends within the interval, and early once maxChars new characters arrived', async () => {
    const store = await storeWithSessions(2);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 60_000, maxChars: 50 });
    let quick = '';
    const short = checkpoints.track({ replyId: 'quick', sessionId: 's0', provider: null }, () => quick);
    quick = 'A short answer.';
    short.onText();
    await sleep(50);
    await short.close();
    expect(await store.replyProgress.get('quick')).toBeUndefined();

    let long = '';
    const chatty = checkpoints.track({ replyId: 'long', sessionId: 's1', provider: null }, () => long);
    long = 'x'.repeat(10);
    chatty.onText();
    await sleep(50);
    expect(await store.replyProgress.get('long')).toBeUndefined();
    long += 'y'.repeat(60);
    chatty.onText();
    await sleep(100);
    expect((await store.replyProgress.get('long'))!.text).toBe(long);
    await chatty.close();
    checkpoints.stop();
  });

  it('close() waits for the write in flight, after which deleting the row is final', async () => {
    const store = await storeWithSessions(1);
    const checkpoints = new ReplyCheckpoints(store, () => 1_000, log, { intervalMs: 10, maxChars: 5 });
    let text = '';
    const r = checkpoints.track({ replyId: 'r', sessionId: 's0', provider: null }, () => text);
    text = 'enough text to be due';
    r.onText();
    // The write starts on the next turn of the event loop; close right after it started.
    await new Promise((resolve) => setImmediate(resolve));
    await r.close();
    expect((await store.replyProgress.get('r'))!.text).toBe(text);
    await store.replyProgress.delete('r');
    text += ' and more';
    r.onText();
    await sleep(50);
    expect(await store.replyProgress.get('r')).toBeUndefined();
    checkpoints.stop();
  });
});
