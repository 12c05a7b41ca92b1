import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, STORE_ENGINES } from '../support/testStores';
import { assistantMessageRow } from '../../server/services/replyStore';
import type { AssistantReplyWrite } from '../../lib/storage';
import type { Store } from '../../lib/storage';

const OWNER = { node: 'node-test', incarnation: 'run-1' };
const NOW = 50_000;

describe.each(STORE_ENGINES)('Store.storeAssistantReply (%s)', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(engine, 'assistant-reply-write');
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  });
  afterAll(() => store.close());

  /** A session whose participant message has a reply streaming: its lease and a checkpoint. */
  async function streamingReply(): Promise<{ sessionId: string; replyId: string; userId: string }> {
    const sessionId = crypto.randomUUID();
    const replyId = crypto.randomUUID();
    const userId = crypto.randomUUID();
    await store.sessions.insert({ id: sessionId, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 5_000 });
    const r = await store.acknowledgeUserMessage({
      sessionId, messageId: userId, clientId: 'c1', text: 'hi', tokens: 1, now: 10_000, clientTs: null,
      messageEvent: { type: 'message.user', payload: { messageId: userId } }, followingEvent: { type: 'reply.started', payload: { replyId } },
      step: 'consent', timeLimitMs: 3_600_000, maxUserMessages: 10, budgetBytes: 1_000_000, addedBytes: 0, lease: { replyId, owner: OWNER },
    });
    expect(r.outcome).toBe('stored');
    await store.replyProgress.save({ replyId, sessionId, text: 'Half a re', provider: 'fake', firstDeltaAt: 11_000, updatedAt: 12_000 });
    return { sessionId, replyId, userId };
  }

  const write = (sessionId: string, replyId: string, userId: string, text: string): AssistantReplyWrite => {
    const provenance = {
      provider: 'fake', providerUrl: 'http://127.0.0.1:1/v1', model: 'm-1', requestedModel: 'm', params: { temperature: 0.2 }, usage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 },
      ttftMs: 120, durationMs: 900, finishReason: 'stop', interrupted: false, attempts: 1, error: null,
    };
    return {
      sessionId, replyId, now: NOW,
      event: { type: 'reply.finished', payload: { replyId, replyTo: userId, status: 'complete', text, ...provenance } },
      message: assistantMessageRow({ id: replyId, sessionId, eventSeq: 0, text, replyTo: userId, status: 'complete', tokens: 3, createdAt: NOW }, provenance),
    };
  };

  it('releases the lease, appends the event, stores the message at its seq, drops the checkpoint and counts the bytes', async () => {
    const { sessionId, replyId, userId } = await streamingReply();
    const before = await store.sessions.storageBytes(sessionId);
    const seqBefore = (await store.events.listForSession(sessionId)).at(-1)!.seq;
    const w = write(sessionId, replyId, userId, 'Half a reply, then all — ünïcode');
    const r = await store.storeAssistantReply(w);
    expect(r.stored).toBe(true);
    expect(r.message).toEqual({ ...w.message, eventSeq: seqBefore + 1 });
    expect(await store.messages.get(replyId)).toEqual(r.message);
    const events = await store.events.listForSession(sessionId);
    expect(events.at(-1)).toMatchObject({ seq: seqBefore + 1, type: 'reply.finished', payload: w.event.payload, serverTs: NOW, clientTs: null });
    expect(await store.replyLeases.getBySession(sessionId)).toBeUndefined();
    expect(await store.replyProgress.get(replyId)).toBeUndefined();
    // The storage counter grows by the event's JSON and the message's text, in UTF-8 bytes, as separate writes did.
    expect(await store.sessions.storageBytes(sessionId)).toBe(before + Buffer.byteLength(JSON.stringify(w.event.payload)) + Buffer.byteLength(w.message.text));
  });

  it('a reply stored already (a lost answer, or a takeover) comes back as it is, and nothing is written', async () => {
    const { sessionId, replyId, userId } = await streamingReply();
    const first = await store.storeAssistantReply(write(sessionId, replyId, userId, 'The first outcome'));
    const events = await store.events.count(sessionId);
    const bytes = await store.sessions.storageBytes(sessionId);
    const again = await store.storeAssistantReply(write(sessionId, replyId, userId, 'Another outcome'));
    expect(again).toEqual({ stored: false, message: first.message });
    expect(await store.events.count(sessionId)).toBe(events);
    expect(await store.sessions.storageBytes(sessionId)).toBe(bytes);
  });

  it('of two calls at once for one reply, one stores it and the other gets that row', async () => {
    const { sessionId, replyId, userId } = await streamingReply();
    const [a, b] = await Promise.all([
      store.storeAssistantReply(write(sessionId, replyId, userId, 'From attempt A')),
      store.storeAssistantReply(write(sessionId, replyId, userId, 'From attempt B')),
    ]);
    expect([a.stored, b.stored].sort()).toEqual([false, true]);
    expect(a.message).toEqual(b.message);
    expect((await store.events.listForSession(sessionId)).filter((e) => e.type === 'reply.finished')).toHaveLength(1);
  });
});
