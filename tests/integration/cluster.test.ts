/**
 * Several Tandem nodes on one PostgreSQL (the run's throwaway cluster): real servers, real socket.io clients,
 * the real `openai` client against the local fake. One session's two tabs on two nodes: one reply at a time,
 * a resend on the other node gets the duplicate ack, Stop (or the artifact's submission) on the other node stops
 * the reply. A node killed
 * with SIGKILL mid-reply: another node stores the reply interrupted once after the lease expiry and pushes
 * Retry; a retry works. A node that starts (or restarts) never touches another live node's reply, and a node
 * restarting under the same TANDEM_NODE_ID takes its own earlier replies back at once. The time-limit sweep
 * expires sessions on one node only. Lease timings are shortened (TTL 3 s, heartbeat 200 ms).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, stallStream } from '../support/fakeOpenAI';
import { STORE_ENGINES } from '../support/testStores';
import type { Coordination } from '../../server/cluster/coordination';
import { openStore, type Store } from '../../lib/storage';
import { TIME_LIMIT_SWEEP_LOCK } from '../../server/services/timeLimitSweep';
import { call, callOk, connectSocket, eventually, join, joinToWorkspace, nextPush, toWorkspace, type ParticipantClient } from '../support/integrationHarness';
import { killNode, startNodeProcess, type NodeProcess } from './nodeProcess';
import { useScriptedProvider } from './scriptedProvider';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { withClusterPseudonymKey } from '../support/clusterKey';
import { REPO_ROOT, wizardStudiesDir } from '../support/wizardTestSupport';

const LEASE_TTL_MS = 3_000; // short, yet long enough that a loaded 2-core machine never looks dead
const HEARTBEAT_MS = 200;
const TAKEOVER_MS = 300;
// In-process nodes have random names and no TANDEM_NODE_ID: they are told they are cluster nodes.
const fast: Partial<Coordination> = { leaseTtlMs: LEASE_TTL_MS, heartbeatMs: HEARTBEAT_MS, takeoverMs: TAKEOVER_MS, singleNode: false };
const fastEnv = { TANDEM_LEASE_TTL_MS: String(LEASE_TTL_MS), TANDEM_LEASE_HEARTBEAT_MS: String(HEARTBEAT_MS), TANDEM_TAKEOVER_SWEEP_MS: String(TAKEOVER_MS) };

const scripted = useScriptedProvider({ timeoutMs: 30_000, maxAttempts: 1 });
const onPostgres = STORE_ENGINES.includes('postgres');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function sharedDatabase(label: string): Promise<string> {
  const { createTestDatabaseUrl } = await import('../support/postgresTestDatabase');
  return createTestDatabaseUrl(label);
}

/** An in-process node on the shared database (its own data folder, as on its own machine). */
const node = (databaseUrl: string, options: Parameters<typeof scripted.server>[0] = {}) => scripted.server({ databaseUrl, coordination: fast, ...options });

/** A node in a child process, to be SIGKILLed. */
async function childNode(databaseUrl: string, env: Record<string, string> = {}): Promise<NodeProcess & { dataDir: string }> {
  const dataDir = withClusterPseudonymKey(fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-cluster-node-')));
  const child = await startNodeProcess(path.join(import.meta.dirname, 'crashServerProcess.ts'), {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PROVIDER_BASE_URL: scripted.fake.url,
    ...fastEnv,
    ...env,
  });
  cleanups.push(async () => {
    await killNode(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { ...child, dataDir };
}

async function openShared(databaseUrl: string): Promise<Store> {
  const store = await openStore({ dataDir: os.tmpdir(), databaseUrl });
  cleanups.push(() => store.close());
  return store;
}

/** reply.started and reply.finished events of a session, by reply id. */
async function replyEvents(store: Store, sessionId: string) {
  const events = await store.events.listForSession(sessionId);
  const ids = (type: string) => events.filter((e) => e.type === type).map((e) => (e.payload as { replyId: string }).replyId);
  return { started: ids('reply.started'), finished: ids('reply.finished'), all: events };
}

const send = (socket: ParticipantClient, clientId: string, text: string) => call(socket, 'chat:send', { clientId, text, clientTs: Date.now() });

describe.skipIf(!onPostgres)('several nodes on one PostgreSQL', () => {
  it('one session on two nodes: one reply at a time, a resend on the other node is a duplicate, Stop works from the other node', async () => {
    const url = await sharedDatabase('cluster one reply');
    const a = await node(url);
    const b = await node(url);
    const joined = await joinToWorkspace(a, 'travel-planning', { PROLIFIC_PID: 'cluster-tabs' });
    const tabA = joined.socket;
    const tabB = await connectSocket(b, joined.token);

    // A reply streams on node A (the fake stalls it after two chunks, so it stays in flight).
    scripted.fake.script(stallStream(['Here ', 'is ', 'a ', 'long ', 'plan.'], 2));
    const firstDelta = nextPush(tabA, 'chat:delta');
    const first = await callOk(tabA, 'chat:send', { clientId: 'tab-msg-1', text: 'Plan my weekend', clientTs: Date.now() });
    await firstDelta;

    // Node B refuses a second reply of the session, as node A itself would.
    const second = await send(tabB, 'tab-msg-2', 'And a second question');
    expect(second.ok ? null : second.error.code).toBe('busy');
    const retry = await call(tabB, 'chat:retry', { clientTs: Date.now() });
    expect(retry.ok ? null : retry.error.code).toBe('busy');
    // A resend of the first message through node B is acknowledged as the same message, with its reply.
    const resent = await send(tabB, 'tab-msg-1', 'Plan my weekend');
    expect(resent.ok && resent.data).toMatchObject({ duplicate: true, replyId: first.replyId, message: { id: first.message.id } });

    // Stop pressed in the tab on node B: node A aborts at its next heartbeat; the reply is stored as stopped.
    const done = nextPush(tabA, 'chat:done');
    const stopAt = Date.now();
    expect(await callOk(tabB, 'chat:stop', { replyId: first.replyId!, clientTs: Date.now() })).toEqual({ stopped: true });
    const stopped = (await done).message;
    const stopMs = Date.now() - stopAt;
    expect(stopped).toMatchObject({ id: first.replyId, status: 'stopped', text: 'Here is ' });
    // Within a heartbeat (plus the provider's abort and the store write), far below the lease expiry.
    expect(stopMs).toBeLessThan(HEARTBEAT_MS + 1_000);
    expect(await b.server.store.replyLeases.list()).toEqual([]);

    // Two new messages at once, one through each node: exactly one starts a reply, the other is busy.
    scripted.fake.script(reply('One answer.'), reply('Another answer.'));
    // The reply streams on the winner's node and is pushed to that node's tab (cross-node pushes are the adapter's part).
    const bothDone = Promise.any([nextPush(tabA, 'chat:done'), nextPush(tabB, 'chat:done')]);
    const raced = await Promise.all([send(tabA, 'race-tab-a', 'From tab A'), send(tabB, 'race-tab-b', 'From tab B')]);
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    expect(raced.filter((r) => !r.ok).map((r) => (r.ok ? null : r.error.code))).toEqual(['busy']);
    expect((await bothDone).message.status).toBe('complete');

    const events = await replyEvents(a.server.store, joined.sessionId);
    expect(events.started).toHaveLength(2);
    expect([...events.finished].sort()).toEqual([...events.started].sort());
    const users = (await a.server.store.messages.listForSession(joined.sessionId)).filter((m) => m.role === 'user');
    expect(users).toHaveLength(2); // tab-m1 once, and the winner of the race
  });

  it('artifact:submit through the other node stops the reply running on the first, and the trajectory shows the reply before the submission', async () => {
    const url = await sharedDatabase('cluster submit stops');
    const a = await node(url);
    const b = await node(url);
    const joined = await joinToWorkspace(a, 'travel-planning', { PROLIFIC_PID: 'cluster-submit' });
    const tabB = await connectSocket(b, joined.token);
    scripted.fake.script(stallStream(['Day ', 'one: ', 'Lisbon, ', 'then ', 'Porto.'], 2));
    const firstDelta = nextPush(joined.socket, 'chat:delta');
    const done = nextPush(joined.socket, 'chat:done');
    const sent = await callOk(joined.socket, 'chat:send', { clientId: 'submit-msg-1', text: 'Plan my weekend', clientTs: Date.now() });
    await firstDelta;

    const state = await callOk(tabB, 'artifact:submit', { fields: { itinerary: 'Day 1: Lisbon…' }, clientTs: Date.now() });
    expect(state.step).toBe('survey');
    expect((await done).message).toMatchObject({ id: sent.replyId, status: 'stopped', text: 'Day one: ' });
    const types = (await replyEvents(b.server.store, joined.sessionId)).all.map((e) => e.type);
    expect(types.filter((t) => t === 'chat.stop_requested')).toHaveLength(1);
    expect(types.indexOf('reply.finished')).toBeGreaterThan(-1);
    expect(types.indexOf('reply.finished')).toBeLessThan(types.indexOf('artifact.submitted'));
    expect(await a.server.store.replyLeases.list()).toEqual([]);
  });

  it('a node that starts up, and its periodic takeover, leave another live node’s reply alone', async () => {
    const url = await sharedDatabase('cluster restart');
    const a = await node(url);
    const joined = await joinToWorkspace(a, 'travel-planning', { PROLIFIC_PID: 'cluster-live' });
    scripted.fake.script(stallStream(['Still ', 'working ', 'on ', 'it.'], 2));
    const firstDelta = nextPush(joined.socket, 'chat:delta');
    const sent = await callOk(joined.socket, 'chat:send', { clientId: 'live-msg-1', text: 'Think hard', clientTs: Date.now() });
    await firstDelta;

    // Node C starts (start-up recovery runs) and sweeps for dead replies for two lease expiries.
    const c = await node(url);
    await new Promise((r) => setTimeout(r, 2 * LEASE_TTL_MS));
    expect(await c.server.participants.chat.takeover.runOnce()).toBe(0);
    expect(await c.server.store.messages.get(sent.replyId!)).toBeUndefined();
    expect((await c.server.store.replyLeases.getBySession(joined.sessionId))!.ownerNode).toBe(a.server.participants.chat.coordination.owner.node);

    // The reply is still node A's to end: Stop stores it as stopped, not interrupted.
    const done = nextPush(joined.socket, 'chat:done');
    await callOk(joined.socket, 'chat:stop', { clientTs: Date.now() });
    expect((await done).message).toMatchObject({ id: sent.replyId, status: 'stopped' });
    const events = await replyEvents(c.server.store, joined.sessionId);
    expect(events.finished).toEqual([sent.replyId]);
  });

  it('a node killed mid-reply: another node stores the reply interrupted once after the lease expiry, pushes Retry, and the retry works', async () => {
    const url = await sharedDatabase('cluster kill');
    const killed = await childNode(url, { TANDEM_NODE_ID: 'node-killed' });
    const survivor = await node(url);
    const peer = await node(url); // a second survivor racing for the takeover

    const j = await join(killed.asTestServer(killed.dataDir), 'travel-planning', { PROLIFIC_PID: 'cluster-kill' });
    const onKilled = await connectSocket(killed.asTestServer(killed.dataDir), j.token);
    await toWorkspace(onKilled);
    const onSurvivor = await connectSocket(survivor, j.token);
    const onPeer = await connectSocket(peer, j.token);
    cleanups.push(() => void onKilled.disconnect());

    scripted.fake.script(reply(Array.from({ length: 300 }, (_, i) => `word${i} `), { tokensPerSecond: 40 }), reply('A fresh answer after the crash.'));
    let received = '';
    onSurvivor.on('chat:delta', (d) => (received += d.text));
    onKilled.on('chat:delta', (d) => (received += d.text));
    const sent = await callOk(onKilled, 'chat:send', { clientId: 'kill-msg-1', text: 'A long answer please', clientTs: Date.now() });
    await eventually('a checkpointed part of the reply', async () => (await survivor.server.store.replyProgress.get(sent.replyId!))?.text.length, 10_000);

    // Whichever survivor takes the reply over tells the tabs connected to it (pushes to tabs on other nodes are
    // the socket.io adapter's part).
    const cutFor = (socket: ParticipantClient) => nextPush(socket, 'chat:error', (e) => e.replyId === sent.replyId, 15_000);
    const cut = Promise.any([cutFor(onSurvivor), cutFor(onPeer)]);
    cut.catch(() => undefined);
    const killedAt = Date.now();
    await killNode(killed);
    const pushed = await cut;
    const recoveredMs = Date.now() - killedAt;
    // Within about lease expiry + takeover period (+ a heartbeat of staleness and a loaded machine's slack).
    expect(recoveredMs).toBeGreaterThanOrEqual(LEASE_TTL_MS - HEARTBEAT_MS - 100);
    expect(recoveredMs).toBeLessThan(LEASE_TTL_MS + TAKEOVER_MS + HEARTBEAT_MS + 3_000);
    expect(pushed).toMatchObject({ retryable: true, partial: { id: sent.replyId, status: 'interrupted' } });

    const store = survivor.server.store;
    const row = (await store.messages.get(sent.replyId!))!;
    expect(row).toMatchObject({ status: 'interrupted', interrupted: true, replyTo: sent.message.id });
    expect(row.text.length).toBeGreaterThan(0);
    expect(received.startsWith(row.text)).toBe(true);
    // Stored once, although two surviving nodes sweep for it.
    await new Promise((r) => setTimeout(r, 2 * TAKEOVER_MS));
    const events = await replyEvents(store, j.sessionId);
    expect(events.finished).toEqual([sent.replyId]);
    expect(await store.replyLeases.list()).toEqual([]);

    const state = await callOk(onSurvivor, 'session:state', {});
    expect(state).toMatchObject({ replyInFlight: null, canRetry: true });
    const done = nextPush(onSurvivor, 'chat:done');
    const retried = await callOk(onSurvivor, 'chat:retry', { clientTs: Date.now() });
    expect((await done).message).toMatchObject({ id: retried.replyId, status: 'complete', text: 'A fresh answer after the crash.' });
    expect((await replyEvents(peer.server.store, j.sessionId)).finished).toEqual([sent.replyId, retried.replyId]);
  });

  it('a node restarting under the same TANDEM_NODE_ID takes its own earlier reply back at start-up, without waiting for the lease to expire', async () => {
    const url = await sharedDatabase('cluster same id');
    // A long lease expiry: only the "previous incarnation" rule can explain a prompt recovery.
    const env = { TANDEM_NODE_ID: 'node-k', TANDEM_LEASE_TTL_MS: '600000', TANDEM_TAKEOVER_SWEEP_MS: '0' };
    const first = await childNode(url, env);
    const t1 = first.asTestServer(first.dataDir);
    const joined = await join(t1, 'travel-planning', { PROLIFIC_PID: 'cluster-same-id' });
    const socket = await connectSocket(t1, joined.token);
    await toWorkspace(socket);
    scripted.fake.script(stallStream(['Half ', 'an ', 'answer'], 2));
    const firstDelta = nextPush(socket, 'chat:delta');
    const sent = await callOk(socket, 'chat:send', { clientId: 'same-msg-1', text: 'Hello', clientTs: Date.now() });
    await firstDelta;
    socket.disconnect();
    await killNode(first);

    const store = await openShared(url);
    expect((await store.replyLeases.getBySession(joined.sessionId))!.ownerNode).toBe('node-k');
    await childNode(url, env); // READY means start-up recovery has run
    expect(await store.messages.get(sent.replyId!)).toMatchObject({ status: 'interrupted' });
    expect(await store.replyLeases.list()).toEqual([]);
  });

  it('a node killed while a reply waits for a researcher: another node resumes the wait with its lease, and the send through it is stored once', async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    const url = await sharedDatabase('cluster review kill');
    const studiesDir = wizardStudiesDir({ review: { timeout_seconds: 600 } });
    cleanups.push(() => fs.rmSync(studiesDir, { recursive: true, force: true }));
    const surveysDir = path.join(REPO_ROOT, 'surveys');
    const killed = await childNode(url, { TANDEM_NODE_ID: 'node-review-killed', STUDIES_DIR: studiesDir, SURVEYS_DIR: surveysDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD });
    const survivor = await node(url, { studiesDir, surveysDir });
    const draft = 'Porto: two days by the river, one in the vineyards.';
    scripted.fake.script(reply(draft));
    const onKilledNode = killed.asTestServer(killed.dataDir);
    const j = await join(onKilledNode, 'woz-review', { PROLIFIC_PID: 'cluster-review-kill' });
    const onKilled = await connectSocket(onKilledNode, j.token);
    await toWorkspace(onKilled);
    const sent = await callOk(onKilled, 'chat:send', { clientId: 'review-kill-1', text: 'Plan my trip', clientTs: Date.now() });
    const store = survivor.server.store;
    await eventually('the stored draft', async () => (await store.reviews.get(sent.replyId!))?.draftText === draft, 10_000);
    onKilled.disconnect();
    await killNode(killed);

    // After the lease expiry the survivor's takeover resumes the wait (not an interrupted reply) and holds the lease.
    const me = survivor.server.participants.chat.coordination.owner;
    await eventually('the survivor holds the waiting reply’s lease', async () => (await store.replyLeases.getBySession(j.sessionId))?.ownerNode === me.node, LEASE_TTL_MS + 5_000);
    await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS)); // its own heartbeats keep it
    const onSurvivor = await connectSocket(survivor, j.token);
    const state = await callOk(onSurvivor, 'session:state', {});
    expect(state.replyInFlight).toMatchObject({ replyId: sent.replyId });
    expect(state.messages.filter((m) => m.role === 'assistant')).toEqual([]);
    expect((await store.reviews.get(sent.replyId!))?.state).toBe('waiting');

    const researcher = await loginAdmin(survivor.server.url);
    expect((await researcher.post(`/api/admin/wizard/reviews/${sent.replyId}/claim`)).status).toBe(200);
    const done = nextPush(onSurvivor, 'chat:done');
    expect((await researcher.post(`/api/admin/wizard/reviews/${sent.replyId}/send`, { action: 'approve' })).status).toBe(200);
    expect((await done).message).toMatchObject({ id: sent.replyId, status: 'complete', text: draft });
    expect(scripted.fake.requests).toHaveLength(1); // the stored draft was not asked for again
    expect((await replyEvents(store, j.sessionId)).finished).toEqual([sent.replyId]);
    expect(await store.replyLeases.list()).toEqual([]);
  });

  it('the time-limit sweep expires sessions on one node at a time', async () => {
    const url = await sharedDatabase('cluster sweep');
    const clock = { now: Date.now() };
    const now = () => clock.now;
    const a = await node(url, { now });
    const b = await node(url, { now });
    const joined = await joinToWorkspace(a, 'travel-planning', { PROLIFIC_PID: 'cluster-sweep' });
    joined.socket.disconnect();
    clock.now += 21 * 60_000; // past travel-planning's 20-minute limit

    // While node A holds the sweep's lock, node B's sweep expires nothing.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const holding = a.server.store.locks.tryRun(TIME_LIMIT_SWEEP_LOCK, async () => {
      entered();
      await held;
    });
    await inside;
    expect(await b.server.participants.chat.timeLimitSweep.runOnce()).toBe(0);
    expect((await b.server.store.sessions.get(joined.sessionId))!.status).toBe('active');
    release();
    await holding;
    // Lock free: the next sweep (on either node) expires the session, once.
    await eventually('the session timed out', async () => (await b.server.store.sessions.get(joined.sessionId))!.status === 'timed_out', 10_000);
    const timedOut = (await b.server.store.events.listForSession(joined.sessionId)).filter((e) => e.type === 'session.timed_out');
    expect(timedOut).toHaveLength(1);
  });

  it('a dashboard export: one at a time cluster-wide, and a download reaching a node that does not see its files names the node holding them', async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    const url = await sharedDatabase('cluster export');
    const a = await node(url);
    const b = await node(url);
    const admin = await loginAdmin(a.server.url);
    // The same researcher session through node B (admin sessions are rows of the shared database).
    const viaB = (p: string, init: RequestInit = {}) => fetch(`${b.server.url}${p}`, { ...init, headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/json' } });

    const created = (await (await admin.post('/api/admin/studies/travel-planning/exports', {})).json()) as { ok: boolean; data: { downloadUrl: string } };
    expect(created.ok).toBe(true);
    const elsewhere = await viaB(created.data.downloadUrl);
    expect(elsewhere.status).toBe(409);
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).toContain(a.server.participants.chat.coordination.owner.node);
    const zip = await admin.get(created.data.downloadUrl);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await zip.arrayBuffer();

    // An export being prepared on some node (its claimed job row) refuses a second one on any node.
    await b.server.store.adminJobs.claim({ id: 'export-elsewhere', kind: 'export', studyId: 'travel-planning', actor: 'r', owner: { node: 'node-z', incarnation: 'z1' }, now: Date.now(), message: 'exporting' });
    const refused = await viaB('/api/admin/studies/travel-planning/exports', { method: 'POST', body: '{}' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/already being prepared/);
  });
  it('a dashboard export prepared on one node downloads through either node on the shared DATA_DIR, once even when asked on both at once, and only by its session', async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    const url = await sharedDatabase('cluster export shared');
    const a = await node(url);
    const b = await node(url, { dataDir: a.dataDir });
    const admin = await loginAdmin(a.server.url);
    const created = (await (await admin.post('/api/admin/studies/travel-planning/exports', {})).json()) as { ok: boolean; data: { downloadUrl: string } };
    expect(created.ok).toBe(true);
    // Another researcher session (another login) cannot use this ticket on either node.
    const other = await loginAdmin(b.server.url);
    expect((await other.get(created.data.downloadUrl)).status).toBe(404);
    // The same session through both nodes at once: exactly one request gets the whole dataset (streamed from the
    // shared folder by whichever node won the ticket), the other is refused.
    const [viaA, viaB] = await Promise.all([a.server.url, b.server.url].map((base) => fetch(`${base}${created.data.downloadUrl}`, { headers: { cookie: admin.cookie } })));
    expect([viaA!.status, viaB!.status].sort()).toEqual([200, 404]);
    const won = viaA!.status === 200 ? viaA! : viaB!;
    const lost = won === viaA ? viaB! : viaA!;
    expect(won.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await won.arrayBuffer()).includes(Buffer.from('sessions.csv'))).toBe(true);
    expect(((await lost.json()) as { error: { message: string } }).error.message).toMatch(/already downloaded/);
    // Downloaded once: the files are removed, and a later request on either node is refused.
    const ticket = created.data.downloadUrl.split('/').at(-2)!;
    await eventually('the export folder removed after the download', () => !fs.existsSync(path.join(a.dataDir, 'admin-exports', ticket)));
    for (const again of [await admin.get(created.data.downloadUrl), await fetch(`${b.server.url}${created.data.downloadUrl}`, { headers: { cookie: admin.cookie } })]) {
      expect(again.status).toBe(404);
      expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/already downloaded/);
    }
  });
  it('a node starting on the shared DATA_DIR keeps the export another live node offers, and removes the folders no live job owns', async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    const url = await sharedDatabase('cluster export folders');
    const a = await node(url);
    const admin = await loginAdmin(a.server.url);
    const created = (await (await admin.post('/api/admin/studies/travel-planning/exports', {})).json()) as { ok: boolean; data: { downloadUrl: string } };
    expect(created.ok).toBe(true);
    // What a crashed process left behind: no job row owns it, and it may hold identities.
    const stray = path.join(a.dataDir, 'admin-exports', 'left-by-a-crash');
    fs.mkdirSync(stray, { recursive: true });
    fs.writeFileSync(path.join(stray, 'identities.csv'), 'participant_id\n');
    await node(url, { dataDir: a.dataDir });
    await eventually('the stray export folder removed', () => !fs.existsSync(stray));
    const ticket = created.data.downloadUrl.split('/').at(-2)!;
    expect(fs.readdirSync(path.join(a.dataDir, 'admin-exports', ticket)).length).toBeGreaterThan(0);
    const zip = await admin.get(created.data.downloadUrl);
    expect(zip.status).toBe(200);
    // The whole dataset, not an empty archive of a folder that is gone.
    expect(Buffer.from(await zip.arrayBuffer()).includes(Buffer.from('sessions.csv'))).toBe(true);
  });
});
