/**
 * Replies that wait for a researcher outlive the process that started them: the node that resumes one takes its
 * lease (adoptReplyLease), and the periodic takeover hands a dead node's waiting reply to be resumed instead of
 * storing it interrupted. On every engine; PostgreSQL's two nodes are two stores (two pools) on one database.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, createTestStoreTarget } from '../../tests/support/testStores';
import { openStore, type LeaseOwner, type Store, type StoreEngine } from '../../lib/storage';
import { userMessageRow } from '../../lib/storage';
import { coordinationFromEnv, type Coordination } from '../cluster/coordination';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { adoptReplyLease, takeOverDeadReplies } from './recovery';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') });
const TTL = 10_000;
const A: LeaseOwner = { node: 'node-a', incarnation: 'a-2' };
const coordinationOf = (owner: LeaseOwner): Coordination => coordinationFromEnv({}, { owner, leaseTtlMs: TTL, heartbeatMs: 1_000, takeoverMs: 0, singleNode: false });

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function storeFor(engine: StoreEngine): Promise<Store> {
  const s = await openStore(await createTestStoreTarget(engine, 'lease adoption'));
  stores.push(s);
  await s.studies.upsertLoaded('travel-planning', 'Travel', 'hash', 'live', 1);
  return s;
}

/** A session whose reply `replyId` was started (lease held by `owner`, heartbeat at `at`), waiting for a researcher if `reviewed`. */
async function startedReply(s: Store, sessionId: string, replyId: string, owner: LeaseOwner | null, at: number, reviewed: boolean): Promise<void> {
  await s.sessions.insert({ id: sessionId, studyId: 'travel-planning', taskId: 'city-weekend', conditionId: 'baseline', isPilot: false, createdAt: 1 });
  const seq = await s.events.append(sessionId, 'message.user', { messageId: `${replyId}-q` }, at, null);
  await s.messages.insert(userMessageRow({ id: `${replyId}-q`, sessionId, eventSeq: seq, text: 'q', clientId: `${replyId}-c`, tokens: 1, createdAt: at }));
  await s.events.append(sessionId, 'reply.started', { replyId, replyTo: `${replyId}-q`, retry: false }, at, null);
  if (owner) await s.replyLeases.acquire({ sessionId, replyId, replyTo: `${replyId}-q`, startedAt: at, owner });
  if (reviewed)
    await s.reviews.insertIfAbsent({ replyId, sessionId, studyId: 'travel-planning', replyTo: `${replyId}-q`, mode: 'review', createdAt: at, deadlineAt: at + 600_000 });
}

describe.each(STORE_ENGINES)('waiting replies change nodes with their lease (%s)', (engine) => {
  it('adoptReplyLease keeps its own lease, takes a previous incarnation’s or a stale one, creates a missing one, and leaves a live node’s', async () => {
    const s = await storeFor(engine);
    const now = 100_000;
    const me = coordinationOf(A);
    await startedReply(s, 'own', 'r-own', A, now - 500, true);
    await startedReply(s, 'prev', 'r-prev', { node: 'node-a', incarnation: 'a-1' }, now - 500, true);
    await startedReply(s, 'stale', 'r-stale', { node: 'node-dead', incarnation: 'd-1' }, now - TTL - 1, true);
    await startedReply(s, 'live', 'r-live', { node: 'node-b', incarnation: 'b-1' }, now - 500, true);
    await startedReply(s, 'none', 'r-none', null, now - 500, true);
    const adopt = (sessionId: string, replyId: string) => adoptReplyLease(s, me, { sessionId, replyId, replyTo: `${replyId}-q` }, now);

    expect(await adopt('own', 'r-own')).toBe(true);
    expect(await adopt('prev', 'r-prev')).toBe(true);
    expect(await adopt('stale', 'r-stale')).toBe(true);
    expect(await adopt('live', 'r-live')).toBe(false);
    expect(await adopt('none', 'r-none')).toBe(true);
    const owners = Object.fromEntries((await s.replyLeases.list()).map((l) => [l.replyId, `${l.ownerNode}/${l.ownerIncarnation}@${l.heartbeatAt}`]));
    expect(owners).toEqual({
      'r-own': `node-a/a-2@${now - 500}`,
      'r-prev': `node-a/a-2@${now}`,
      'r-stale': `node-a/a-2@${now}`,
      'r-live': `node-b/b-1@${now - 500}`,
      'r-none': `node-a/a-2@${now}`,
    });
    // The heartbeat of the adopting node now refreshes them (it used to find them held by the dead process).
    expect((await s.replyLeases.heartbeat(A, ['r-prev', 'r-stale', 'r-none', 'r-live'], now + 1_000)).map((h) => h.replyId).sort()).toEqual(['r-none', 'r-prev', 'r-stale']);
  });

  it('the periodic takeover resumes a dead node’s waiting reply instead of storing it interrupted, and leaves a live one alone', async () => {
    const s = await storeFor(engine);
    const now = 100_000;
    await startedReply(s, 'waiting', 'r-waiting', { node: 'node-dead', incarnation: 'd-1' }, now - TTL - 1, true);
    await startedReply(s, 'cut', 'r-cut', { node: 'node-dead', incarnation: 'd-1' }, now - TTL - 1, false);
    await startedReply(s, 'alive', 'r-alive', { node: 'node-b', incarnation: 'b-1' }, now - 500, true);
    const resumed: string[] = [];
    const stored = await takeOverDeadReplies(s, config, coordinationOf(A), now, () => undefined, () => false, async (replyId) => {
      resumed.push(replyId);
      return true;
    });
    expect(resumed).toEqual(['r-waiting']);
    expect(stored).toBe(1);
    expect((await s.messages.get('r-cut'))?.status).toBe('interrupted');
    expect(await s.messages.get('r-waiting')).toBeUndefined();
    expect((await s.reviews.get('r-waiting'))?.state).toBe('waiting');
  });
});
