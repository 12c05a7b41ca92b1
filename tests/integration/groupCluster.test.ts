/**
 * Two live nodes on one PostgreSQL match as one (Redis streams adapter, real servers, real socket.io clients): nine
 * people enter one lobby at the same moment, alternately through node A and node B, and are seated exactly once
 * (three groups of three: nobody in two groups, no seat filled twice, every grouped event once), and then a group
 * whose members sit on both nodes chats across them: a message sent through one node, and the agent's streamed
 * reply, reach the members on the other node, and a researcher's monitor on the other node sees them too.
 */
import crypto from 'node:crypto';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../common/envelope';
import type { GroupMessageView, GroupPush, GroupView } from '../../common/groupEvents';
import type { MonitorGroupPush } from '../../common/groupMonitor';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { groupStudyDirs } from '../support/groupTestStudies';
import { callOk, eventually, postJson, type ParticipantClient } from '../support/integrationHarness';
import { hasPostgresCluster } from '../support/postgresTestDatabase';
import { redisServerMissing, startRedisServer, type RedisServer } from '../support/redisServer';
import { startTestCluster, type TestCluster } from '../cluster/transportNodes';

const missing = redisServerMissing() ?? (hasPostgresCluster() ? null : 'no PostgreSQL cluster (TANDEM_TEST_POSTGRES=off): group cluster tests skipped');
if (missing) console.warn(missing);
const STUDY = 'group-room';

function groupCall<T>(socket: ParticipantClient, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 20_000);
    (socket.emit as any)(event, payload, (reply: Envelope<T>) => {
      clearTimeout(timer);
      if (reply.ok) resolve(reply.data);
      else reject(new Error(`${event}: ${reply.error.code}: ${reply.error.message}`));
    });
  });
}

function collect<T>(socket: Socket | ParticipantClient, event: string): T[] {
  const seen: T[] = [];
  (socket.on as any)(event, (p: T) => seen.push(p));
  return seen;
}

describe.skipIf(missing !== null)('group sessions on two nodes', () => {
  let redis: RedisServer;
  let c: TestCluster;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    redis = await startRedisServer();
    c = await startTestCluster('group-cluster', { adapter: 'redis', redisUrl: redis.url }, 2, {
      studiesDir: dirs.studiesDir,
      surveysDir: dirs.surveysDir,
      // No sweep during the test: the lobby fills by joins alone, and nobody's reconnect races a dropout.
      groups: { sweepMs: 600_000 },
      offline: { tokensPerSecond: 200, firstTokenDelayMs: 50 },
    });
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await redis?.stop();
    dirs.cleanup();
  });

  /** A consented person with a socket on node `node`. */
  async function person(node: number) {
    const res = await postJson(`${c.nodes[node]!.url}/api/join`, { studyId: STUDY, params: { participant_label: `gc-${crypto.randomUUID().slice(0, 8)}` } });
    if (!res.body.ok) throw new Error(`join failed: ${JSON.stringify(res.body)}`);
    const { token, sessionId } = res.body.data as { token: string; sessionId: string };
    const socket = await c.socket(node, token);
    const state = await callOk(socket, 'session:state', {});
    await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
    return { node, sessionId, socket, views: collect<GroupView>(socket, 'group:view') };
  }

  it('seats people who join through both nodes at once exactly once, and the room reaches members on either node', async () => {
    const people = await Promise.all(Array.from({ length: 9 }, (_, i) => person(i % 2)));
    // Everyone enters the lobby at the same moment, through their own node.
    await Promise.all(people.map((p) => groupCall<GroupView>(p.socket, 'group:lobby:join', {})));
    const store = c.nodes[0]!.store;
    const groups = await eventually('three groups', async () => {
      const list = await store.groups.listGroups(STUDY);
      return list.length === 3 ? list : null;
    }, 15_000);
    const seats = (await Promise.all(groups.map((g) => store.groups.listMembers(g.id)))).flat().filter((m) => m.kind === 'participant');
    // Every person in exactly one seat, every seat once, three people per group.
    expect(seats.map((m) => m.sessionId).sort()).toEqual(people.map((p) => p.sessionId).sort());
    expect(new Set(seats.map((m) => `${m.groupId}/${m.seat}`)).size).toBe(9);
    for (const g of groups) expect(seats.filter((m) => m.groupId === g.id).map((m) => m.seat).sort()).toEqual([1, 2, 3]);
    const events = await store.groups.listEvents(STUDY);
    expect(events.filter((e) => e.type === 'grouped').map((e) => e.sessionId).sort()).toEqual(people.map((p) => p.sessionId).sort());
    expect(events.filter((e) => e.type === 'lobby_joined')).toHaveLength(9);
    for (const e of await store.groups.listLobbyEntries(STUDY)) expect(e.outcome).toBe('grouped');

    // Each person's socket got its own group's view, whichever node seated them.
    for (const p of people) {
      const view = await eventually('grouped view', () => p.views.find((v) => v.state === 'grouped'), 10_000);
      expect(view.state === 'grouped' && view.groupId).toBe(seats.find((m) => m.sessionId === p.sessionId)!.groupId);
    }

    // A group with members on both nodes, watched by a researcher on node B.
    const mixed = groups.find((g) => {
      const nodes = new Set(seats.filter((m) => m.groupId === g.id).map((m) => people.find((p) => p.sessionId === m.sessionId)!.node));
      return nodes.size === 2;
    })!;
    const members = people.filter((p) => seats.some((m) => m.groupId === mixed.id && m.sessionId === p.sessionId));
    const sender = members.find((p) => p.node === 0)!;
    const readers = members.filter((p) => p !== sender);
    expect(readers.some((p) => p.node === 1)).toBe(true);
    const admin = await loginAdmin(c.nodes[1]!.url);
    const monitor = connect(`${c.nodes[1]!.url}/admin`, { transports: ['websocket'], forceNew: true, extraHeaders: { cookie: admin.cookie } });
    const monitorPushes = collect<MonitorGroupPush>(monitor, 'monitor:group');
    const snapshot = await new Promise<Envelope<{ groups?: { groups: { groupId: string }[] } }>>((resolve) => monitor.emit('monitor:subscribe', { studyId: STUDY }, resolve));
    expect(snapshot.ok && snapshot.data.groups!.groups.map((g) => g.groupId).sort()).toEqual(groups.map((g) => g.id).sort());

    const received = readers.map((p) => ({ p, messages: collect<GroupMessageView>(p.socket, 'group:message'), deltas: collect<GroupPush<'group:delta'>>(p.socket, 'group:delta') }));
    const { groupSeq } = await groupCall<{ groupSeq: number }>(sender.socket, 'group:send', { groupId: mixed.id, clientId: 'across-1', text: 'Across the nodes: lake at ten?' });
    for (const r of received) {
      const got = await eventually(`member on node ${r.p.node} gets the message`, () => r.messages.find((m) => m.groupSeq === groupSeq), 10_000);
      expect(got).toMatchObject({ senderName: expect.stringMatching(/^Member [123]$/), text: 'Across the nodes: lake at ten?' });
      // The agent answers every message; its reply streams on one node and reaches both.
      const reply = await eventually(`member on node ${r.p.node} gets the agent's reply`, () => r.messages.find((m) => m.senderKind === 'agent'), 20_000);
      expect(reply.senderName).toBe('Facilitator');
      expect(r.deltas.length).toBeGreaterThan(0);
    }
    // The monitor on node B saw the message and the reply, each once.
    await eventually('the monitor sees the reply', () => monitorPushes.some((p) => p.kind === 'message' && p.groupId === mixed.id && p.message.senderKind === 'agent'), 10_000);
    const messagePushes = monitorPushes.filter((p) => p.kind === 'message' && p.groupId === mixed.id);
    expect(messagePushes.map((p) => (p.kind === 'message' ? p.message.groupSeq : 0))).toEqual([groupSeq, groupSeq + 1]);
    // A member on node B writes back: stored once however often resent, and it reaches the sender on node A.
    const readerOnB = readers.find((p) => p.node === 1)!;
    const atSender = collect<GroupMessageView>(sender.socket, 'group:message');
    const back = await groupCall<{ groupSeq: number }>(readerOnB.socket, 'group:send', { groupId: mixed.id, clientId: 'b-1', text: 'From node B' });
    expect(await groupCall<{ groupSeq: number }>(readerOnB.socket, 'group:send', { groupId: mixed.id, clientId: 'b-1', text: 'From node B' })).toEqual(back);
    await eventually('the sender on node A gets it', () => atSender.find((m) => m.text === 'From node B'), 10_000);
    const history = await groupCall<{ messages: GroupMessageView[] }>(sender.socket, 'group:history', { groupId: mixed.id, afterSeq: 0 });
    expect(history.messages.filter((m) => m.text === 'From node B')).toHaveLength(1);
    monitor.disconnect();
  }, 120_000);
});
