/**
 * PostgreSQL-specific guarantees of the store, on a real PostgreSQL (the run's throwaway cluster): races
 * between two connections, type mapping, transaction edges, the cursor-backed export snapshot and the reply
 * cache table. The engine-neutral repository behaviour is covered by the tests parameterised over STORE_ENGINES.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from '../../../tests/support/postgresTestDatabase';
import type { Store } from '../contract/store';
import { openPostgresStore } from '.';
import { userMessageRow } from '../contract/userMessageAck';

const stores: Store[] = [];
const urls = new WeakMap<Store, string>();
async function freshStore(label: string): Promise<Store> {
  const url = await createTestDatabaseUrl(label);
  const store = await openPostgresStore(url, { poolSize: 6 });
  stores.push(store);
  urls.set(store, url);
  await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1_000);
  return store;
}
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const session = (store: Store, id: string = crypto.randomUUID()) =>
  store.sessions.insert({ id, studyId: 'study', taskId: 'task', conditionId: 'cond', isPilot: false, createdAt: 2_000 });

const userMessage = (sessionId: string, clientId: string, eventSeq: number) =>
  userMessageRow({ id: crypto.randomUUID(), sessionId, eventSeq, text: 'hello', clientId, tokens: 1, createdAt: 3_000 });

/** Resolves when `n` parties have called `arrive()`: holds two transactions open at the same point. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return () => {
    if (++arrived === n) release();
    return all;
  };
}

class Duplicate extends Error {}

describe('PostgreSQL store: two connections racing', () => {
  let store: Store;
  beforeAll(async () => {
    store = await freshStore('pg race');
  });

  it('stores a resend once when two transactions on two connections insert the same client id at the same moment', async () => {
    const s = await session(store);
    const bothOpen = barrier(2);
    const attempt = () =>
      store.transaction(async (tx) => {
        // Each transaction holds a pooled connection of its own; both are open (and have read) before either inserts.
        await tx.sessions.count();
        await bothOpen();
        const inserted = await tx.messages.insertIfNewClientId(userMessage(s.id, 'client-1', 1));
        if (!inserted) throw new Duplicate();
      });
    const results = await Promise.allSettled([attempt(), attempt()]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(Duplicate);
    expect(await store.messages.count(s.id)).toBe(1);
  });

  it('keeps the event of the winner only when full sends (event + message) race, over many rounds', async () => {
    const s = await session(store);
    for (let round = 0; round < 15; round++) {
      const clientId = `c-${round}`;
      const start = barrier(3);
      const send = () =>
        store.transaction(async (tx) => {
          await start();
          const seq = await tx.events.append(s.id, 'message.user', { clientId }, 4_000, null);
          if (!(await tx.messages.insertIfNewClientId(userMessage(s.id, clientId, seq)))) throw new Duplicate();
          return seq;
        });
      const results = await Promise.allSettled([send(), send(), send()]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Duplicate);
    }
    const events = await store.events.listForSession(s.id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(events.map((e) => (e.payload as { clientId: string }).clientId)).toEqual(Array.from({ length: 15 }, (_, i) => `c-${i}`));
    expect(await store.messages.count(s.id)).toBe(15);
  });

  it('gives concurrent appends to one session seq 1…n without gaps or repeats (in and outside transactions)', async () => {
    const s = await session(store);
    const inTx = Array.from({ length: 20 }, (_, i) => store.transaction((tx) => tx.events.append(s.id, 'x', { i }, 5_000, null)));
    const bare = Array.from({ length: 20 }, (_, i) => store.events.append(s.id, 'y', { i }, 5_000, null));
    const seqs = await Promise.all([...inTx, ...bare]);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('numbers artifact versions 1…n when two submits race', async () => {
    const s = await session(store);
    const versions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.transaction((tx) => tx.artifacts.insertVersion(s.id, { text: `v${i}` }, i + 1, 6_000))),
    );
    expect([...versions].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('lets exactly one of several nodes insert the first admin credential', async () => {
    const fresh = await freshStore('pg credential');
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((h) => fresh.adminAuth.insertCredentialIfAbsent(h, 'generated', 7_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await fresh.adminAuth.getCredential())!.passwordHash).toBe(['a', 'b', 'c', 'd'][results.indexOf(true)]);
  });
});

describe('PostgreSQL store: types and transactions', () => {
  let store: Store;
  beforeAll(async () => {
    store = await freshStore('pg types');
  });

  it('returns BIGINT times and counts as numbers, JSON parsed, flags as booleans', async () => {
    const s = await session(store);
    const big = 1_796_000_000_123; // a ms timestamp beyond 2^31
    await store.events.append(s.id, 'telemetry', { nested: { a: [1, 'two'] } }, big, big + 1);
    const [e] = await store.events.listForSession(s.id);
    expect(e).toEqual({ sessionId: s.id, seq: 1, type: 'telemetry', payload: { nested: { a: [1, 'two'] } }, serverTs: big, clientTs: big + 1 });
    expect(typeof (await store.events.count())).toBe('number');
    expect((await store.sessions.get(s.id))!.isPilot).toBe(false);
    expect((await store.countRows()).events).toBe(1);
  });

  it('rolls back everything of a transaction whose function throws', async () => {
    const s = await session(store);
    await expect(
      store.transaction(async (tx) => {
        await tx.events.append(s.id, 'a', {}, 1, null);
        await tx.sessions.update(s.id, { step: 'workspace' }, 2);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.events.count(s.id)).toBe(0);
    expect((await store.sessions.get(s.id))!.step).toBe('consent');
  });

  it('undoes only the failed savepoint of a nested transaction', async () => {
    const s = await session(store);
    await store.transaction(async (tx) => {
      await tx.events.append(s.id, 'outer', {}, 1, null);
      await expect(
        tx.transaction(async (inner) => {
          await inner.events.append(s.id, 'inner', {}, 1, null);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await tx.events.append(s.id, 'after', {}, 1, null);
    });
    expect((await store.events.listForSession(s.id)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'outer'],
      [2, 'after'],
    ]);
  });

  it('refuses to report success when a statement failed inside the transaction and the error was swallowed', async () => {
    const s = await session(store);
    await expect(
      store.transaction(async (tx) => {
        await tx.events.append(s.id, 'kept?', {}, 1, null);
        await tx.events.append('no-such-session', 'x', {}, 1, null).catch(() => undefined); // FK violation, swallowed
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await store.events.count(s.id)).toBe(0);
  });

  it('does not show a transaction’s uncommitted rows to calls on the store', async () => {
    const s = await session(store);
    let seenOutside = -1;
    await store.transaction(async (tx) => {
      await tx.events.append(s.id, 'a', {}, 1, null);
      seenOutside = await store.events.count(s.id);
    });
    expect(seenOutside).toBe(0);
    expect(await store.events.count(s.id)).toBe(1);
  });

  it('refuses any UPDATE of an event or an audit entry (append-only triggers), while withdrawal still deletes by cascade', async () => {
    // No repository updates an event; the triggers guard the tables against any other client too.
    const s = await session(store);
    await store.events.append(s.id, 'a', {}, 1, null);
    await store.audit.append({ at: 1, actor: 'r', action: 'login', studyId: null });
    const raw = new pg.Client(urls.get(store));
    await raw.connect();
    try {
      await expect(raw.query(`UPDATE events SET type = 'b' WHERE session_id = $1`, [s.id])).rejects.toThrow('events are append-only');
      await expect(raw.query(`UPDATE audit_log SET actor = 'x'`)).rejects.toThrow('the audit log is append-only');
    } finally {
      await raw.end();
    }
    expect(await store.transaction((tx) => tx.withdrawals.deleteSessions([s.id]))).toBe(1);
    expect(await store.events.count(s.id)).toBe(0);
  });
});

describe('PostgreSQL store: export snapshot on cursors', () => {
  it('streams rows in order in batches, with several cursors open at once, from one consistent snapshot', async () => {
    const store = await freshStore('pg export');
    const ids = ['s-a', 's-b', 's-c'];
    for (const id of ids) {
      await session(store, id);
      await store.transaction(async (tx) => {
        for (let i = 0; i < 1_200; i++) await tx.events.append(id, 'tick', { i }, 10_000 + i, null);
      });
    }
    const snapshot = await store.openExportSnapshot();
    try {
      // Written after the snapshot began: must not appear in it.
      await store.events.append('s-a', 'late', {}, 99_999, null);
      await session(store, 's-late');

      const seen: Record<string, number[]> = {};
      for await (const s of snapshot.sessions('study', true)) {
        seen[s.id] = [];
        for await (const e of snapshot.events(s.id)) {
          seen[s.id]!.push(e.seq);
          if (e.seq === 600) expect(await snapshot.identity(s.id)).toBeUndefined(); // another read mid-stream
        }
      }
      expect(Object.keys(seen)).toEqual(ids);
      for (const id of ids) expect(seen[id]).toEqual(Array.from({ length: 1_200 }, (_, i) => i + 1));

      // A consumer that stops early leaves the snapshot usable.
      for await (const e of snapshot.events('s-b')) if (e.seq === 3) break;
      expect(await snapshot.countSessions('study', true)).toBe(3);
    } finally {
      await snapshot.close();
    }
    expect(await store.events.count('s-a')).toBe(1_201);
  });
});

describe('PostgreSQL store: the judge reply cache as a table', () => {
  it('stores, replaces, links and forgets replies by session', async () => {
    const store = await freshStore('pg cache');
    const cache = await store.openReplyCache();
    const entry = (key: string, result: string) => ({ key, purpose: 'judge', requestJson: '{"m":1}', resultJson: result, createdAt: 1 });
    await cache.put(entry('k1', '{"a":1}'));
    await cache.put(entry('k1', '{"a":2}'));
    await cache.put(entry('k2', '{"b":1}'));
    await cache.linkSession('k1', 's1');
    await cache.linkSession('k1', 's1');
    await cache.linkSession('k2', 's2');
    expect((await cache.get('k1'))!.resultJson).toBe('{"a":2}');
    expect(await cache.count()).toBe(2);
    expect(await cache.forgetSessions(['s1'])).toBe(1);
    expect(await cache.get('k1')).toBeUndefined();
    expect(await cache.count()).toBe(1);
    await cache.close();
    // The cache lives in the database: another handle (another node, a later CLI run) sees it.
    expect((await (await store.openReplyCache()).get('k2'))!.resultJson).toBe('{"b":1}');
  });
});

describe('PostgreSQL store: the interactive view (chat acknowledgements)', () => {
  it('commits while every connection of the main pool is busy, and both see the same rows and locks', async () => {
    const store = await freshStore('pg interactive');
    expect(store.interactive).not.toBe(store);
    expect(store.interactive.interactive).toBe(store.interactive);
    const s = await session(store);
    // Occupy all 6 connections of the main pool (freshStore's poolSize) with open transactions.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const allOpen = barrier(7);
    const holders = Array.from({ length: 6 }, () =>
      store.transaction(async (tx) => {
        await tx.sessions.count();
        await allOpen();
        await held;
      }),
    );
    await allOpen();
    // A statement on the main store now queues for a connection; the interactive view is not behind it.
    let mainDone = false;
    const queued = store.sessions.count().then(() => (mainDone = true));
    const seq = await store.interactive.transaction(async (tx) => {
      const n = await tx.events.append(s.id, 'message.user', { clientId: 'c' }, 4_000, null);
      expect(await tx.messages.insertIfNewClientId(userMessage(s.id, 'c', n))).toBe(true);
      return n;
    });
    expect(seq).toBe(1);
    expect(mainDone).toBe(false);
    release();
    await Promise.all([...holders, queued]);
    // Same database: the main store sees the row, and the unique (session, clientId) spans both pools.
    expect((await store.messages.findByClientId(s.id, 'c'))!.eventSeq).toBe(1);
    expect(await store.messages.insertIfNewClientId(userMessage(s.id, 'c', 2))).toBe(false);
  });

  it('is closed with the store', async () => {
    const url = await createTestDatabaseUrl('pg interactive close');
    const store = await openPostgresStore(url, { poolSize: 2, interactivePoolSize: 1 });
    await store.interactive.sessions.count();
    await store.close();
    await expect(store.interactive.sessions.count()).rejects.toThrow(/closed|ended|Cannot use a pool/i);
  });
});
