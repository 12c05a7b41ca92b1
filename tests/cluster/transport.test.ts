/**
 * Cross-node transport (issue #13): two Tandem nodes in this process on one PostgreSQL database (the run's
 * throwaway cluster) and a real redis-server, with real socket.io clients. Each tab is connected to a node of
 * its own: pushes cross nodes through the adapter; what lives in one node's memory (sockets, the reply in
 * flight) is read by the others. The core cases run with both adapters (Redis streams and PostgreSQL
 * LISTEN/NOTIFY); Redis restarts, shared rate limits and connection-state recovery with Redis.
 */
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDelta } from '../../common/events';
import type { ClusterOptions } from '../../server/cluster/clusterOptions';
import { callOk, call, nextPush, postJson, type ParticipantClient } from '../support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import pg from 'pg';
import { MAX_CONNECTIONS_PER_MINUTE, MAX_SOCKETS_PER_SESSION } from '../../server/socket/sessionBudget';
import { hasPostgresCluster, postgresAdminUrl } from '../support/postgresTestDatabase';
import { redisServerMissing, startRedisServer, type RedisServer } from '../support/redisServer';
import { startTestCluster, type TestCluster } from './transportNodes';

const missing = redisServerMissing() ?? (hasPostgresCluster() ? null : 'no PostgreSQL cluster (TANDEM_TEST_POSTGRES=off): cluster tests skipped');
if (missing) console.warn(missing);

let redis: RedisServer;
beforeAll(async () => {
  if (missing) return;
  process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

async function joinOn(url: string, label: string, params: Record<string, string> = { participant_label: label }): Promise<{ token: string; sessionId: string }> {
  const res = await postJson(`${url}/api/join`, { studyId: 'visualization', params });
  if (!res.body.ok) throw new Error(`join failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Every delta of one reply on a socket, and its chat:done. */
function collectReply(socket: ParticipantClient, replyId: () => string | undefined) {
  const deltas: ChatDelta[] = [];
  socket.on('chat:delta', (d) => deltas.push(d));
  const done = nextPush(socket, 'chat:done', (d) => d.message.id === replyId(), 20_000);
  return { deltas: () => deltas.filter((d) => d.replyId === replyId()).map((d) => d.text).join(''), done };
}

const clientTs = () => Date.now();
let nextClientId = 0;
const clientId = () => `cluster-msg-${process.pid}-${++nextClientId}`;

const adapters: Array<[string, () => ClusterOptions]> = [
  ['redis', () => ({ adapter: 'redis', redisUrl: redis.url })],
  ['postgres', () => ({ adapter: 'postgres' })],
];

describe.skipIf(missing !== null).each(adapters)('two nodes, %s adapter', (kind, options) => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startTestCluster(`transport-${kind}`, options());
  });
  afterAll(async () => {
    await c?.close();
  });

  it('reports both nodes healthy on GET /healthz, with their names, the database engine and the adapter', async () => {
    for (const [i, node] of c.nodes.entries()) {
      const res = await fetch(`${node.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        node: `node-${'ab'[i]}`,
        database: { ok: true, engine: 'postgres' },
        adapter: { kind, ok: true },
      });
    }
  });

  it('two tabs of one session on two nodes both see every step change and every streamed reply', async () => {
    const j = await joinOn(c.nodes[0]!.url, `two-tabs-${kind}`);
    const onA = await c.socket(0, j.token);
    const onB = await c.socket(1, j.token);

    // A step change on A reaches the tab on B, and one on B reaches A.
    const seenOnB = nextPush(onB, 'session:state', (s) => s.step === 'instructions');
    const state = await callOk(onA, 'session:state', {});
    await callOk(onA, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clientTs() });
    expect((await seenOnB).step).toBe('instructions');
    const seenOnA = nextPush(onA, 'session:state', (s) => s.step === 'workspace');
    await callOk(onB, 'step:advance', { from: 'instructions', clientTs: clientTs() });
    expect((await seenOnA).step).toBe('workspace');

    // A reply streamed by node A arrives whole on both tabs, and one streamed by node B too.
    for (const [sender, other] of [
      [onA, onB],
      [onB, onA],
    ] as const) {
      let replyId: string | undefined;
      const mirrored = nextPush(other, 'chat:message', (m) => m.message.role === 'user');
      const here = collectReply(sender, () => replyId);
      const there = collectReply(other, () => replyId);
      const ack = await callOk(sender, 'chat:send', { clientId: clientId(), text: 'What plot should I use?', clientTs: clientTs() });
      replyId = ack.replyId!;
      expect((await mirrored).message.id).toBe(ack.message.id);
      const [doneHere, doneThere] = await Promise.all([here.done, there.done]);
      expect(doneHere.message.status).toBe('complete');
      expect(doneThere.message).toEqual(doneHere.message);
      expect(doneHere.message.text.length).toBeGreaterThan(20);
      // Every fragment arrived, in order, on both nodes' tabs.
      expect(here.deltas()).toBe(doneHere.message.text);
      expect(there.deltas()).toBe(doneHere.message.text);
    }
    const stored = await c.nodes[1]!.store.messages.listForSession(j.sessionId);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a resend that lands on the other node is stored once, and a tab that moves mid-reply catches up there', async () => {
    const j = await joinOn(c.nodes[0]!.url, `resend-${kind}`);
    const onA = await c.socket(0, j.token);
    const state = await callOk(onA, 'session:state', {});
    await callOk(onA, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clientTs() });
    await callOk(onA, 'step:advance', { from: 'instructions', clientTs: clientTs() });

    const message = { clientId: clientId(), text: 'Which variable goes on the x axis?', clientTs: clientTs() };
    const firstDelta = nextPush(onA, 'chat:delta');
    const first = await callOk(onA, 'chat:send', message);
    await firstDelta;
    // The tab loses node A while the reply streams there, reconnects to node B and resends (its ack "was lost").
    onA.disconnect();
    const onB = await c.socket(1, j.token);
    let replyId: string | undefined = first.replyId!;
    const rest = collectReply(onB, () => replyId);
    const caughtUp = await callOk(onB, 'session:state', {});
    const resent = await callOk(onB, 'chat:send', message);
    expect(resent.duplicate).toBe(true);
    expect(resent.message.id).toBe(first.message.id);

    // The snapshot from node B carries node A's reply so far; the deltas after it and chat:done follow.
    expect(caughtUp.messages.map((m) => m.id)).toContain(first.message.id);
    expect(caughtUp.replyInFlight?.replyId).toBe(first.replyId);
    expect(caughtUp.canRetry).toBe(false);
    const done = await rest.done;
    replyId = undefined;
    expect(done.message.status).toBe('complete');
    expect(done.message.text.startsWith(caughtUp.replyInFlight!.text)).toBe(true);
    expect(done.message.text.endsWith(rest.deltas() || done.message.text)).toBe(true);

    const rows = await c.nodes[0]!.store.messages.listForSession(j.sessionId);
    expect(rows.filter((m) => m.clientId === message.clientId)).toHaveLength(1);
    expect(rows.filter((m) => m.role === 'assistant')).toHaveLength(1);
  });

  it('the admin monitor on node A lists a participant connected on node B; logout on B ends the researcher socket on A', async () => {
    const j = await joinOn(c.nodes[1]!.url, `monitor-${kind}`);
    const admin = await loginAdmin(c.nodes[0]!.url);
    const s = connect(`${c.nodes[0]!.url}/admin`, { transports: ['websocket'], forceNew: true, extraHeaders: { cookie: admin.cookie } });
    try {
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', reject);
      });
      const rowOf = (snap: { sessions: Array<{ sessionId: string; connection: string }> }) => snap.sessions.find((x) => x.sessionId === j.sessionId);
      const before = (await s.emitWithAck('monitor:subscribe', { studyId: 'visualization' })) as { ok: boolean; data: { sessions: Array<{ sessionId: string; connection: string }> } };
      expect(before.ok).toBe(true);
      expect(rowOf(before.data)?.connection).toBe('disconnected');
      // The participant connects to node B: node A's monitor pushes it as connected.
      const connected = new Promise<string | undefined>((resolve) => {
        s.on('monitor:update', (u: { sessions: Array<{ sessionId: string; connection: string }> }) => {
          if (rowOf(u)?.connection === 'connected') resolve(rowOf(u)?.connection);
        });
      });
      const participant = await c.socket(1, j.token);
      expect(await connected).toBe('connected');
      participant.disconnect();

      // Logging out on node B ends the researcher's socket on node A.
      const closed = new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));
      const logout = await fetch(`${c.nodes[1]!.url}/api/admin/logout`, { method: 'POST', headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf } });
      expect(logout.status).toBe(200);
      expect(await closed).toBe('io server disconnect');
    } finally {
      s.disconnect();
    }
  });

  it('a rejoin on node A (token re-issued) disconnects the old tab on node B, which cannot reconnect with the old token', async () => {
    // A Prolific link with its per-visit SESSION_ID: opening it again re-issues the token without a resume code.
    const link = { PROLIFIC_PID: `takeover-${kind}`, STUDY_ID: 'cluster', SESSION_ID: `visit-${kind}` };
    const first = await joinOn(c.nodes[0]!.url, link.PROLIFIC_PID, link);
    const onB = await c.socket(1, first.token);
    const gone = new Promise<string>((resolve) => onB.once('disconnect', (reason) => resolve(reason)));
    const again = await joinOn(c.nodes[0]!.url, link.PROLIFIC_PID, link);
    expect(again.sessionId).toBe(first.sessionId);
    expect(await gone).toBe('io server disconnect');
    await expect(c.socket(1, first.token)).rejects.toThrow('unauthorized');
    await expect(c.socket(1, again.token)).resolves.toBeDefined();
  });

  it('holds the per-session socket budget across the nodes', async () => {
    const j = await joinOn(c.nodes[0]!.url, `budget-${kind}`);
    const open: ParticipantClient[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_SESSION; i++) open.push(await c.socket(i % 2, j.token));
    for (const node of [0, 1]) await expect(c.socket(node, j.token)).rejects.toThrow('too many connections for this session');
    open.pop()!.disconnect();
    await new Promise((r) => setTimeout(r, 200)); // the server sees the disconnect
    await expect(c.socket(0, j.token)).resolves.toBeDefined();
    for (const s of open) s.disconnect();
  });

  it('holds the budget when handshakes race on both nodes', async () => {
    const j = await joinOn(c.nodes[0]!.url, `budget-race-${kind}`);
    const open: ParticipantClient[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_SESSION - 2; i++) open.push(await c.socket(i % 2, j.token));
    // Six handshakes at once, three per node: each node's count sees at most 18 + its own, so several pass.
    const racers = await Promise.allSettled([0, 1, 0, 1, 0, 1].map((node) => c.socket(node, j.token)));
    const admitted = racers.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    await new Promise((r) => setTimeout(r, 1_500)); // the second count (one cluster query) and the disconnects
    const connected = [...open, ...admitted].filter((s) => s.connected).length;
    expect(connected).toBeLessThanOrEqual(MAX_SOCKETS_PER_SESSION);
    expect(open.every((s) => s.connected)).toBe(true);
    for (const s of [...open, ...admitted]) s.disconnect();
  });
});

describe.skipIf(missing !== null)('two nodes on Redis: shared limits, Redis restart, recovery', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startTestCluster('transport-limits', { adapter: 'redis', redisUrl: redis.url }, 2, { resumeAttemptsPer15Min: 4 });
  });
  afterAll(async () => {
    await c?.close();
  });

  it('counts a rate limit once for the cluster: attempts spread over both nodes share one budget', async () => {
    const attempt = (node: number) => postJson(`${c.nodes[node]!.url}/api/join/resume`, { studyId: 'visualization', params: {}, code: 'ABCD-EFGH' });
    const codes: number[] = [];
    for (const node of [0, 1, 0, 1, 0, 1]) codes.push((await attempt(node)).status);
    // Four attempts (wrong code) get an answer, the fifth and sixth are refused, whichever node they reach.
    expect(codes.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(codes.slice(4)).toEqual([429, 429]);
    const refused = await attempt(1);
    expect(refused.body.error.code).toBe('rate_limited');
  });

  it('counts a session\'s connections per minute over both nodes', async () => {
    const j = await joinOn(c.nodes[0]!.url, 'connection-rate');
    const outcomes: string[] = [];
    for (let i = 0; i < MAX_CONNECTIONS_PER_MINUTE + 4; i++) {
      const s = await c.socket(i % 2, j.token).then(
        (sock) => (sock.disconnect(), 'connected'),
        (err: Error) => err.message,
      );
      outcomes.push(s);
    }
    expect(outcomes.filter((o) => o === 'connected')).toHaveLength(MAX_CONNECTIONS_PER_MINUTE);
    expect(outcomes.slice(MAX_CONNECTIONS_PER_MINUTE)).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited']);
  });

  it('reports 503 with database.ok false when the database is gone, and says nothing more', async () => {
    const lone = await startTestCluster('transport-dbdown', { adapter: 'redis', redisUrl: redis.url }, 1);
    try {
      const admin = new pg.Client({ connectionString: postgresAdminUrl() });
      await admin.connect();
      await admin.query(`DROP DATABASE "${new URL(lone.databaseUrl).pathname.slice(1)}" WITH (FORCE)`);
      await admin.end();
      const res = await waitFor(
        async () => {
          const r = await fetch(`${lone.nodes[0]!.url}/healthz`);
          return { status: r.status, body: await r.json() };
        },
        (r) => r.status === 503,
      );
      expect(res.body).toEqual({ status: 'unavailable', node: 'node-a', database: { ok: false, engine: 'postgres' }, adapter: { kind: 'redis', ok: true } });
    } finally {
      await lone.close().catch(() => undefined);
    }
  });

  it('keeps serving while Redis restarts, reports 503 meanwhile, and pushes across nodes again afterwards', async () => {
    const j = await joinOn(c.nodes[0]!.url, 'redis-restart');
    const streaming = await joinOn(c.nodes[0]!.url, 'redis-down-chat');
    const tab = await c.socket(0, streaming.token);
    const st = await callOk(tab, 'session:state', {});
    await callOk(tab, 'consent:respond', { accept: true, version: st.consent.version, clientTs: clientTs() });
    await callOk(tab, 'step:advance', { from: 'instructions', clientTs: clientTs() });
    await redis.kill();
    const health = async (node: number) => {
      const res = await fetch(`${c.nodes[node]!.url}/healthz`);
      return { status: res.status, body: (await res.json()) as { status: string; adapter: { kind: string; ok: boolean }; database: { ok: boolean } } };
    };
    const down = await waitFor(() => health(0), (h) => h.status === 503);
    expect(down.body).toMatchObject({ status: 'unavailable', adapter: { kind: 'redis', ok: false }, database: { ok: true } });
    // The node still answers participants (join works on node B with Redis down: the rate limit fails open).
    const other = await joinOn(c.nodes[1]!.url, 'redis-down-join');
    expect(other.sessionId).toMatch(/.+/);
    // A tab on the node that streams its reply gets it whole while Redis is away (pushes do not wait for Redis).
    let replyId: string | undefined;
    const reply = collectReply(tab, () => replyId);
    replyId = (await callOk(tab, 'chat:send', { clientId: clientId(), text: 'Is Redis needed for this?', clientTs: clientTs() })).replyId!;
    const done = await reply.done;
    expect(done.message.status).toBe('complete');
    expect(reply.deltas()).toBe(done.message.text);
    expect((await health(0)).status).toBe(503); // still away: the reply did not wait for it
    tab.disconnect();

    await redis.start();
    for (const node of [0, 1]) await waitFor(() => health(node), (h) => h.status === 200, 15_000);
    // The adapter reads the stream again: a step change on node B reaches the tab on node A.
    const onA = await c.socket(0, j.token);
    const onB = await c.socket(1, j.token);
    const state = await callOk(onB, 'session:state', {});
    const seen = nextPush(onA, 'session:state', (s) => s.step === 'instructions');
    await callOk(onB, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clientTs() });
    expect((await seen).step).toBe('instructions');
    onA.disconnect();
    onB.disconnect();
  });

  it('connection-state recovery: a tab whose transport dropped gets the push it missed, sent from the other node', async () => {
    const j = await joinOn(c.nodes[0]!.url, 'recovery');
    const s: ParticipantClient = connect(c.nodes[0]!.url, { auth: { token: j.token }, transports: ['websocket'], forceNew: true, reconnectionDelay: 300 });
    try {
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', reject);
      });
      const onB = await c.socket(1, j.token);
      const state = await callOk(onB, 'session:state', {});
      // A first push gives the tab an offset in the adapter's stream (recovery replays from it).
      const first = nextPush(s, 'session:state', (st) => st.step === 'instructions');
      await callOk(onB, 'consent:respond', { accept: true, version: state.consent.version, clientTs: clientTs() });
      await first;
      // Drop the transport (as a network loss would), change the step on node B while the tab is away.
      const reconnected = new Promise<void>((resolve) => s.io.once('reconnect', () => resolve()));
      const missed: string[] = [];
      s.on('session:state', (st) => missed.push(st.step));
      s.io.engine.close();
      await callOk(onB, 'step:advance', { from: 'instructions', clientTs: clientTs() });
      await reconnected;
      await waitFor(async () => missed, (m) => m.includes('workspace'), 5000);
      expect(s.recovered).toBe(true);
      expect(missed).toEqual(['workspace']);
      onB.disconnect();
    } finally {
      s.disconnect();
    }
  });
});

async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
