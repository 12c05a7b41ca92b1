/**
 * A researcher's voice in a group room (server/wizard/groupRoutes.ts), on both engines with real sockets: the routes
 * need the login (401) and, to post, the CSRF token (403); a group id that is not a group, an agent that is not a
 * wizard agent of that group's condition, an empty text and a message beyond max_replies are refused and store
 * nothing; a researcher's message reaches the members as the agent (its seat, sender kind agent) and is stored with
 * sender_kind researcher (and the researcher's monitor, which needs the login, says so); the wizard agent's model
 * never answers on its own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../common/envelope';
import type { GroupMessageView, GroupView } from '../../common/groupEvents';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { groupStudyDirs } from '../support/groupTestStudies';
import { callOk, connectSocket, eventually, join, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

const STUDY = 'group-wizard-routes';

function groupOk<T>(socket: ParticipantClient, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    (socket.emit as any)(event, payload, (reply: Envelope<T>) => (reply.ok ? resolve(reply.data) : reject(new Error(`${event}: ${reply.error.code}`))));
  });
}

describe.each(STORE_ENGINES)('the wizard\'s group routes (%s)', (engine) => {
  let t: TestServer;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    let text = fs.readFileSync(path.join(dirs.studiesDir, 'group-demo.yaml'), 'utf8');
    text = text
      .replace('size: { min: 2, max: 3 }', 'size: { min: 2, max: 2 }')
      .replace('      - name: Facilitator\n        provider: openai', '      - name: Facilitator\n        provider: offline')
      .replace('        speaks: { every_n_messages: 3 }\n        max_replies: 20\n', '        speaks: every_message\n        max_replies: 2\n        assistant: { mode: wizard }\n      - name: Scribe\n        provider: offline\n        model: demo\n        system_prompt: Take notes.\n        speaks: when_addressed\n        max_replies: 1\n');
    fs.writeFileSync(path.join(dirs.studiesDir, `${STUDY}.yaml`), text);
    t = await startTestServer({ engine, studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, groups: { sweepMs: 60_000 } });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  it('speak as the wizard agent only, with login and CSRF, within max_replies; the members see the agent', async () => {
    const url = t.server.url;
    const people = [];
    for (let i = 0; i < 2; i++) {
      const joined = await join(t, STUDY, { participant_label: `gw-${crypto.randomUUID().slice(0, 8)}` });
      const socket = await connectSocket(t, joined.token);
      const state = await callOk(socket, 'session:state', {});
      await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
      await groupOk<GroupView>(socket, 'group:lobby:join', {});
      people.push({ joined, socket });
    }
    const view = (await groupOk<GroupView>(people[0]!.socket, 'group:status', {})) as Extract<GroupView, { state: 'grouped' }>;
    expect(view.state).toBe('grouped');
    const say = `/api/admin/wizard/groups/${view.groupId}/say`;

    // No login: 401; a participant's token is no login either. Logged in without the CSRF token: 403.
    expect((await fetch(`${url}/api/admin/wizard/studies/${STUDY}/group-agents`)).status).toBe(401);
    const stranger = await fetch(`${url}${say}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${people[0]!.joined.token}` }, body: JSON.stringify({ agent: 'Facilitator', text: 'x' }) });
    expect(stranger.status).toBe(401);
    const admin = await loginAdmin(url);
    expect((await admin.post(say, { agent: 'Facilitator', text: 'x' }, { 'x-csrf-token': '' })).status).toBe(403);

    const agents = (await (await admin.get(`/api/admin/wizard/studies/${STUDY}/group-agents`)).json()) as Envelope<{ agents: unknown[] }>;
    expect(agents).toEqual({ ok: true, data: { studyId: STUDY, agents: [{ conditionId: 'facilitated', name: 'Facilitator', maxReplies: 2, cannedReplies: [] }] } });
    const uses = (await (await admin.get(`/api/admin/wizard/studies/${STUDY}/uses`)).json()) as Envelope<{ uses: boolean }>;
    expect(uses).toEqual({ ok: true, data: { uses: true } });

    const refused = async (p: string, body: unknown) => {
      const res = await admin.post(p, body);
      return { status: res.status, body: (await res.json()) as Envelope<unknown> };
    };
    expect(await refused(say, { agent: 'Scribe', text: 'hello' })).toMatchObject({ body: { ok: false, error: { code: 'forbidden', field: 'agent' } } });
    expect(await refused(say, { agent: 'Member 1', text: 'hello' })).toMatchObject({ body: { ok: false, error: { code: 'forbidden', field: 'agent' } } });
    expect(await refused(`/api/admin/wizard/groups/${crypto.randomUUID()}/say`, { agent: 'Facilitator', text: 'hello' })).toMatchObject({ body: { ok: false, error: { code: 'not_found' } } });
    expect(await refused('/api/admin/wizard/groups/not-a-group/say', { agent: 'Facilitator', text: 'hello' })).toMatchObject({ status: 400, body: { ok: false, error: { code: 'invalid_input', field: 'groupId' } } });
    expect(await refused(say, { agent: 'Facilitator', text: '   ' })).toMatchObject({ status: 400, body: { ok: false, error: { code: 'invalid_input', field: 'text' } } });
    expect(await refused(say, { agent: 'Facilitator', text: 'hi', extra: 1 })).toMatchObject({ status: 400, body: { ok: false } });
    expect(await t.server.store.groups.listMessages(view.groupId)).toEqual([]);

    // A person's message: the wizard agent's model does not answer it.
    await groupOk(people[0]!.socket, 'group:send', { groupId: view.groupId, clientId: 'p1', text: 'What now?' });
    const seen: GroupMessageView[] = [];
    (people[1]!.socket.on as any)('group:message', (m: GroupMessageView) => seen.push(m));
    const first = await admin.post(say, { agent: 'Facilitator', text: 'Pick a place first.' });
    expect(await first.json()).toEqual({ ok: true, data: { groupSeq: 2 } });
    const pushed = await eventually('the member sees it', () => seen.find((m) => m.groupSeq === 2));
    const facilitatorSeat = view.members.find((m) => m.name === 'Facilitator')!.seat;
    expect(pushed).toMatchObject({ senderKind: 'agent', senderName: 'Facilitator', seat: facilitatorSeat, text: 'Pick a place first.' });
    // max_replies (2) bounds the researcher as it bounds a model, also for two researchers sending at once.
    const other = await loginAdmin(url);
    const raced = await Promise.all([refused(say, { agent: 'Facilitator', text: 'Then the time.' }), other.post(say, { agent: 'Facilitator', text: 'Then the time.' }).then(async (r) => ({ status: r.status, body: (await r.json()) as Envelope<unknown> }))]);
    expect(raced.map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort()).toEqual(['limit_reached', 'ok']);
    expect(await refused(say, { agent: 'Facilitator', text: 'And a third.' })).toMatchObject({ body: { ok: false, error: { code: 'limit_reached' } } });
    await new Promise((r) => setTimeout(r, 200));
    const stored = await t.server.store.groups.listMessages(view.groupId);
    expect(stored.map((m) => [m.groupSeq, m.senderKind, m.senderName, m.sessionId === null])).toEqual([
      [1, 'participant', 'Member 1', false],
      [2, 'researcher', 'Facilitator', true],
      [3, 'researcher', 'Facilitator', true],
    ]);
    // A reload shows the members the agent, not the researcher.
    const reloaded = (await groupOk<GroupView>(people[1]!.socket, 'group:status', {})) as Extract<GroupView, { state: 'grouped' }>;
    expect(reloaded.messages.map((m) => m.senderKind)).toEqual(['participant', 'agent', 'agent']);

    // The monitor that shows the room is the researcher's only: no login, or a participant's token, is refused.
    for (const options of [{}, { auth: { token: people[0]!.joined.token } }, { extraHeaders: { cookie: `tandem_admin=${people[0]!.joined.token}` } }]) {
      const socket = connect(`${url}/admin`, { transports: ['websocket'], forceNew: true, reconnection: false, ...options });
      const refusal = await new Promise<string>((resolve) => {
        socket.once('connect', () => resolve('connected'));
        socket.once('connect_error', (err) => resolve(err.message));
      });
      socket.disconnect();
      expect(refusal).toBe('unauthorized');
    }
    const watcher = connect(`${url}/admin`, { transports: ['websocket'], forceNew: true, extraHeaders: { cookie: admin.cookie } });
    const snapshot = await new Promise<Envelope<{ groups?: { groups: { groupId: string; messages: { senderKind: string }[] }[] } }>>((resolve) => watcher.emit('monitor:subscribe', { studyId: STUDY }, resolve));
    watcher.disconnect();
    // The researcher's view says who wrote it.
    expect(snapshot.ok && snapshot.data.groups!.groups.find((g) => g.groupId === view.groupId)!.messages.map((m) => m.senderKind)).toEqual(['participant', 'researcher', 'researcher']);
  });
});
