/**
 * The coordination contracts on every engine (leaseTypes.ts, lockTypes.ts, jobTypes.ts): one reply lease per
 * session, heartbeats and stop flags, takeover candidates, takeover stored once when two nodes race, named
 * locks held by one run at a time, dashboard jobs claimed once and abandoned when their node stops.
 * PostgreSQL's multi-node cases use two stores (two pools, as two nodes would) on one database.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_ENGINES, createTestStoreTarget } from '../support/testStores';
import { openStore, type LeaseOwner, type Store, type StoreEngine } from '../../lib/storage';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { recoverInterruptedReplies, takeOverDeadReplies } from '../../server/services/recovery';
import { coordinationFromEnv, type Coordination } from '../../server/cluster/coordination';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') });

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const A: LeaseOwner = { node: 'node-a', incarnation: 'a-1' };
const B: LeaseOwner = { node: 'node-b', incarnation: 'b-1' };
const TTL = 10_000;
const coordinationOf = (owner: LeaseOwner, singleNode = false): Coordination =>
  coordinationFromEnv({}, { owner, leaseTtlMs: TTL, heartbeatMs: 1_000, takeoverMs: 0, singleNode });

/**
 * Two nodes' stores on one database (PostgreSQL: two pools). SQLite serves one node (its transactions are
 * serialised by the store's gate, and a second connection in this process would deadlock against an open
 * transaction), so there both are the same store and the races run through its one connection.
 */
async function twoStores(engine: StoreEngine, label: string): Promise<[Store, Store]> {
  const target = await createTestStoreTarget(engine, label);
  const first = await openStore(target);
  stores.push(first);
  if (engine === 'sqlite') return [first, first];
  const second = await openStore(target);
  stores.push(second);
  return [first, second];
}

async function seedSession(s: Store, id: string): Promise<void> {
  await s.studies.upsertLoaded('travel-planning', 'Travel', 'hash', 'live', 1);
  await s.sessions.insert({ id, studyId: 'travel-planning', taskId: 'city-weekend', conditionId: 'baseline', isPilot: false, createdAt: 1 });
}

/** What send does: the user message, the lease and reply.started in one transaction. Resolves whether it got the lease. */
async function startReply(s: Store, sessionId: string, replyId: string, owner: LeaseOwner, now: number): Promise<boolean> {
  const got = await s.transaction(async (tx) => {
    if (!(await tx.replyLeases.acquire({ sessionId, replyId, replyTo: `${replyId}-q`, startedAt: now, owner }))) return false;
    const seq = await tx.events.append(sessionId, 'message.user', { messageId: `${replyId}-q` }, now, null);
    await tx.messages.insert({
      id: `${replyId}-q`, sessionId, eventSeq: seq, role: 'user', text: 'q', clientId: `${replyId}-c`, replyTo: null, status: 'complete', tokens: 1,
      provider: null, providerUrl: null, model: null, requestedModel: null, params: null, usage: null, ttftMs: null, durationMs: null,
      finishReason: null, interrupted: false, attempts: null, error: null, createdAt: now,
    });
    await tx.events.append(sessionId, 'reply.started', { replyId, replyTo: `${replyId}-q`, retry: false }, now, null);
    return true;
  });
  return got;
}

const finishedEvents = async (s: Store, sessionId: string) => (await s.events.listForSession(sessionId)).filter((e) => e.type === 'reply.finished');

describe.each(STORE_ENGINES)('reply leases (%s)', (engine) => {
  it('allow one active reply per session, released with its outcome', async () => {
    const [s] = await twoStores(engine, 'lease one');
    await seedSession(s, 's1');
    expect(await startReply(s, 's1', 'r1', A, 1_000)).toBe(true);
    // A second reply of the same session, from any node, is refused and its transaction stores nothing.
    expect(await startReply(s, 's1', 'r2', B, 1_001)).toBe(false);
    expect((await s.events.listForSession('s1')).map((e) => e.type)).toEqual(['message.user', 'reply.started']);
    expect(await s.replyLeases.getBySession('s1')).toEqual({
      sessionId: 's1', replyId: 'r1', replyTo: 'r1-q', ownerNode: 'node-a', ownerIncarnation: 'a-1', startedAt: 1_000, heartbeatAt: 1_000, stopRequested: false,
    });
    expect(await s.transaction((tx) => tx.replyLeases.release('r1'))).toBe(true);
    expect(await s.replyLeases.release('r1')).toBe(false);
    expect(await startReply(s, 's1', 'r2', B, 1_002)).toBe(true);
  });

  it('give the lease to exactly one of two transactions racing on two connections', async () => {
    const [s1, s2] = await twoStores(engine, 'lease race');
    await seedSession(s1, 's1');
    const results = await Promise.all([startReply(s1, 's1', 'ra', A, 1_000), startReply(s2, 's1', 'rb', B, 1_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const started = (await s1.events.listForSession('s1')).filter((e) => e.type === 'reply.started');
    expect(started).toHaveLength(1);
    expect((await s1.replyLeases.getBySession('s1'))!.replyId).toBe((started[0]!.payload as { replyId: string }).replyId);
  });

  it('refresh only the owner’s leases, report stop flags, and leave out a lease the owner lost', async () => {
    const [s] = await twoStores(engine, 'lease heartbeat');
    for (const id of ['s1', 's2', 's3']) await seedSession(s, id);
    await startReply(s, 's1', 'r1', A, 1_000);
    await startReply(s, 's2', 'r2', A, 1_000);
    await startReply(s, 's3', 'r3', B, 1_000);
    expect(await s.replyLeases.requestStop('s2', 'someone-else')).toBeNull();
    expect(await s.replyLeases.requestStop('s2')).toBe('r2');
    expect(await s.replyLeases.requestStop('nobody')).toBeNull();
    await s.replyLeases.release('r1'); // e.g. taken over meanwhile
    const held = await s.replyLeases.heartbeat(A, ['r1', 'r2', 'r3'], 5_000);
    expect(held).toEqual([{ replyId: 'r2', stopRequested: true }]);
    expect((await s.replyLeases.getBySession('s2'))!.heartbeatAt).toBe(5_000);
    // Another incarnation of the same node name does not refresh node A's leases; neither does node B.
    expect(await s.replyLeases.heartbeat({ node: 'node-a', incarnation: 'a-2' }, ['r2'], 6_000)).toEqual([]);
    expect((await s.replyLeases.getBySession('s3'))!.heartbeatAt).toBe(1_000);
    expect(await s.replyLeases.heartbeat(B, [], 6_000)).toEqual([]);
  });

  // PostgreSQL only: SQLite serialises every transaction through one connection, so nothing can hold a row lock.
  if (engine === 'postgres') {
    it('do not wait for a lease another transaction holds locked (it is answered as last committed)', async () => {
      const [s1, s2] = await twoStores(engine, 'lease heartbeat skip');
      for (const id of ['s1', 's2']) await seedSession(s1, id);
      await startReply(s1, 's1', 'r1', A, 1_000);
      await startReply(s1, 's2', 'r2', A, 1_000);
      // Another node's transaction locks r1 (as a reply's final transaction or a takeover does) and stays open.
      let finish!: () => void;
      const open = new Promise<void>((resolve) => (finish = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = s2.transaction(async (tx) => {
        await tx.replyLeases.getForUpdate('r1');
        locked();
        await open;
      });
      await lockTaken;
      const answer = await Promise.race([
        s1.replyLeases.heartbeat(A, ['r1', 'r2'], 5_000),
        new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000)),
      ]);
      finish();
      await holder;
      expect(answer).toEqual(expect.arrayContaining([{ replyId: 'r1', stopRequested: false }, { replyId: 'r2', stopRequested: false }]));
      expect(answer).toHaveLength(2);
      // The free lease was refreshed, the locked one not (the next heartbeat refreshes it).
      expect((await s1.replyLeases.getBySession('s2'))!.heartbeatAt).toBe(5_000);
      expect((await s1.replyLeases.getBySession('s1'))!.heartbeatAt).toBe(1_000);
      expect(await s1.replyLeases.heartbeat(A, ['r1', 'r2'], 7_000)).toHaveLength(2);
      expect((await s1.replyLeases.getBySession('s1'))!.heartbeatAt).toBe(7_000);
    });
  }

  it('list as takeover candidates the stale leases and those of this node’s previous incarnation', async () => {
    const [s] = await twoStores(engine, 'lease candidates');
    for (const id of ['s1', 's2', 's3']) await seedSession(s, id);
    await startReply(s, 's1', 'old-b', B, 1_000);
    await startReply(s, 's2', 'fresh-b', B, 20_000);
    await startReply(s, 's3', 'prev-a', { node: 'node-a', incarnation: 'a-0' }, 20_000);
    const ids = (await s.replyLeases.listTakeoverCandidates(20_000 - TTL, A)).map((l) => l.replyId);
    expect(ids).toEqual(['old-b', 'prev-a']);
    expect((await s.replyLeases.listTakeoverCandidates(20_000 - TTL, B)).map((l) => l.replyId)).toEqual(['old-b']);
  });

  it('are deleted with their session (withdrawal)', async () => {
    const [s] = await twoStores(engine, 'lease cascade');
    await seedSession(s, 's1');
    await startReply(s, 's1', 'r1', A, 1_000);
    await s.withdrawals.deleteSessions(['s1']);
    expect(await s.replyLeases.list()).toEqual([]);
  });
});

describe.each(STORE_ENGINES)('reply takeover (%s)', (engine) => {
  it('stores a dead node’s reply interrupted once when two nodes race, and leaves a live node’s reply alone', async () => {
    const [s1, s2] = await twoStores(engine, 'takeover race');
    await seedSession(s1, 'dead');
    await seedSession(s1, 'live');
    await startReply(s1, 'dead', 'r-dead', { node: 'node-x', incarnation: 'x-1' }, 1_000);
    await s1.replyProgress.save({ replyId: 'r-dead', sessionId: 'dead', text: 'partial text', provider: 'openai-compatible', firstDeltaAt: 1_200, updatedAt: 1_900 });
    await startReply(s1, 'live', 'r-live', { node: 'node-y', incarnation: 'y-1' }, 1_000);
    const now = 1_000 + TTL + 1;
    await s1.replyLeases.heartbeat({ node: 'node-y', incarnation: 'y-1' }, ['r-live'], now - 100);

    const told: string[] = [];
    const results = await Promise.all([
      takeOverDeadReplies(s1, config, coordinationOf(A), now, (m) => told.push(`a:${m.id}`)),
      takeOverDeadReplies(s2, config, coordinationOf(B), now, (m) => told.push(`b:${m.id}`)),
    ]);
    expect(results.reduce((a, b) => a + b, 0)).toBe(1);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/:r-dead$/);
    const finished = await finishedEvents(s1, 'dead');
    expect(finished).toHaveLength(1);
    expect(finished[0]!.payload).toMatchObject({ replyId: 'r-dead', status: 'interrupted', text: 'partial text', recovered: true });
    expect(await s1.messages.get('r-dead')).toMatchObject({ status: 'interrupted', text: 'partial text', ttftMs: 200, durationMs: 900, requestedModel: 'gpt-4o-mini' });
    expect(await s1.replyLeases.getBySession('dead')).toBeUndefined();
    expect(await s1.replyProgress.get('r-dead')).toBeUndefined();
    // The live node's reply: untouched, still leased.
    expect(await finishedEvents(s1, 'live')).toEqual([]);
    expect((await s1.replyLeases.getBySession('live'))!.replyId).toBe('r-live');
  });

  it('at start-up: takes this node’s previous incarnation and unleased replies, never another live node’s', async () => {
    const [s] = await twoStores(engine, 'takeover startup');
    for (const id of ['mine', 'other', 'legacy']) await seedSession(s, id);
    await startReply(s, 'mine', 'r-mine', { node: 'node-a', incarnation: 'a-0' }, 5_000);
    await startReply(s, 'other', 'r-other', B, 5_000);
    // A reply started before leases existed (or by a pre-021 server): reply.started with no lease.
    await startReply(s, 'legacy', 'r-legacy', B, 5_000);
    await s.replyLeases.release('r-legacy');

    expect(await recoverInterruptedReplies(s, config, coordinationOf(A), 5_001)).toBe(2);
    expect((await s.messages.get('r-mine'))!.status).toBe('interrupted');
    expect((await s.messages.get('r-legacy'))!.status).toBe('interrupted');
    expect(await s.messages.get('r-other')).toBeUndefined();
    expect((await s.replyLeases.list()).map((l) => l.replyId)).toEqual(['r-other']);
    // Run again (another node starting): nothing more is stored.
    expect(await recoverInterruptedReplies(s, config, coordinationOf(B), 5_002)).toBe(0);
    expect(await finishedEvents(s, 'mine')).toHaveLength(1);
  });

  it('on a single-node store takes every earlier incarnation’s replies at start-up, whatever its node name', async () => {
    const [s] = await twoStores(engine, 'takeover single');
    await seedSession(s, 's1');
    await startReply(s, 's1', 'r1', { node: 'host:1234:abc', incarnation: 'old' }, 5_000);
    expect(await recoverInterruptedReplies(s, config, coordinationOf(A, false), 5_001)).toBe(0);
    expect(await recoverInterruptedReplies(s, config, coordinationOf(A, true), 5_001)).toBe(1);
  });
});

describe.each(STORE_ENGINES)('named locks (%s)', (engine) => {
  it('run one holder at a time, release after the run and after a failure', async () => {
    const [s1, s2] = await twoStores(engine, 'locks');
    // On PostgreSQL the second store is another node; on SQLite (one node) runs of one store exclude each other.
    const other = s2;
    let release!: () => void;
    const holding = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const first = s1.locks.tryRun('job', async () => {
      entered();
      await holding;
      return 'first';
    });
    await inside;
    let ranSecond = false;
    expect(await other.locks.tryRun('job', async () => (ranSecond = true))).toEqual({ ran: false });
    expect(ranSecond).toBe(false);
    // Another name is another lock.
    expect(await other.locks.tryRun('other-job', async () => 7)).toEqual({ ran: true, value: 7 });
    release();
    expect(await first).toEqual({ ran: true, value: 'first' });
    expect(await other.locks.tryRun('job', async () => 'second')).toEqual({ ran: true, value: 'second' });
    await expect(other.locks.tryRun('job', async () => Promise.reject(new Error('job broke')))).rejects.toThrow('job broke');
    expect(await s1.locks.tryRun('job', async () => 'after failure')).toEqual({ ran: true, value: 'after failure' });
  });
});

describe.each(STORE_ENGINES)('dashboard jobs (%s)', (engine) => {
  const job = (id: string, owner: LeaseOwner, now: number) => ({ id, kind: 'judge', studyId: 'st', actor: 'researcher', owner, now, message: 'starting' });

  it('are claimed once per kind and study, report progress, end once and are visible from every connection', async () => {
    const [s1, s2] = await twoStores(engine, 'jobs claim');
    const claims = await Promise.all([s1.adminJobs.claim(job('j1', A, 1_000)), s2.adminJobs.claim(job('j2', B, 1_000))]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const id = claims[0] ? 'j1' : 'j2';
    const owner = claims[0] ? A : B;
    expect(await s1.adminJobs.claim({ ...job('j3', A, 1_001), kind: 'analysis' })).toBe(true);
    expect(await s1.adminJobs.progress(id, { node: owner.node, incarnation: 'other' }, { done: 1, total: 9, message: 'x' }, 1_500)).toBe(false);
    expect(await s1.adminJobs.progress(id, owner, { done: 2, total: 9, message: '2/9 judge samples' }, 1_500)).toBe(true);
    expect(await s2.adminJobs.latest('st', 'judge')).toMatchObject({ id, state: 'running', done: 2, total: 9, message: '2/9 judge samples', heartbeatAt: 1_500 });
    expect(await s2.adminJobs.finish(id, { state: 'done', done: 9, total: 9, message: '9/9 judge samples', result: { samples: 9 } }, 2_000)).toBe(true);
    expect(await s1.adminJobs.finish(id, { state: 'failed', done: 0, total: 0, message: 'late', result: null }, 2_001)).toBe(false);
    expect(await s1.adminJobs.get(id)).toMatchObject({ state: 'done', done: 9, total: 9, message: '9/9 judge samples', result: { samples: 9 }, finishedAt: 2_000 });
    expect((await s1.adminJobs.get(id))!.takenAt).toBeNull();
    // A done job's result is taken once, whichever connection asks first; a running one cannot be taken.
    expect(await s1.adminJobs.take('j3', 2_100)).toBe(false);
    const takes = await Promise.all([s1.adminJobs.take(id, 2_500), s2.adminJobs.take(id, 2_500)]);
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await s1.adminJobs.take(id, 2_600)).toBe(false);
    expect(await s2.adminJobs.take('no-such-job', 2_600)).toBe(false);
    expect((await s2.adminJobs.get(id))!.takenAt).toBe(2_500);
    // Once it ended, a new one may start.
    expect(await s1.adminJobs.claim(job('j4', A, 3_000))).toBe(true);
    expect((await s2.adminJobs.latest('st', 'judge'))!.id).toBe('j4');
  });

  it('are marked failed (abandoned) when their node stopped heartbeating or restarted, not while alive', async () => {
    const [s] = await twoStores(engine, 'jobs abandon');
    await s.adminJobs.claim(job('dead', B, 1_000));
    await s.adminJobs.claim({ ...job('prev', { node: 'node-a', incarnation: 'a-0' }, 1_000), kind: 'analysis' });
    await s.adminJobs.claim({ ...job('alive', B, 1_000), kind: 'export' });
    await s.adminJobs.progress('alive', B, { done: 1, total: 2, message: '' }, 9_000);
    const abandoned = await s.adminJobs.abandonStale(5_000, A, 9_500);
    expect(abandoned.map((j) => j.id).sort()).toEqual(['dead', 'prev']);
    expect(await s.adminJobs.get('dead')).toMatchObject({ state: 'failed', finishedAt: 9_500, message: expect.stringMatching(/abandoned/) });
    expect((await s.adminJobs.get('alive'))!.state).toBe('running');
    // The owner, back from a pause, cannot overwrite the verdict.
    expect(await s.adminJobs.progress('dead', B, { done: 1, total: 1, message: '' }, 9_600)).toBe(false);
    expect(await s.adminJobs.finish('dead', { state: 'done', done: 1, total: 1, message: 'late', result: null }, 9_600)).toBe(false);
  });
});
