/**
 * Group policies over a real server, real socket.io clients and the local fake OpenAI server, on both engines:
 * quota matching on an answer (not a URL parameter), the idle_seconds speaking policy on the test's clock (no
 * sleeps), an agent whose model fails (HTTP 500: nothing posted, the room goes on, agent_failed in the group's
 * record, not retried on the same message), and the per-member message and edit budgets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../../common/groupEvents';
import { MAX_DOC_UPDATES_PER_MEMBER } from '../../server/groups/room';
import { httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { collect, consentedPerson, editShared, groupCall, groupOk, grouped, type GroupPerson } from '../support/groupClients';
import { groupStudyDirs } from '../support/groupTestStudies';
import { eventually, startTestServer, type TestServer } from '../support/integrationHarness';
import pg from 'pg';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';

/** group-demo.yaml with `edits` applied (each must match), written as `id`. */
function writeVariant(studiesDir: string, id: string, edits: [string | RegExp, string][]): void {
  let text = fs.readFileSync(path.join(studiesDir, 'group-demo.yaml'), 'utf8');
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`${id}: ${String(from)} not in group-demo.yaml`);
    text = next;
  }
  fs.writeFileSync(path.join(studiesDir, `${id}.yaml`), text);
}

const EMPTY_UPDATE = 'AAA='; // Y.encodeStateAsUpdate(new Y.Doc())

describe.each(STORE_ENGINES)('group policies (%s)', (engine) => {
  let t: TestServer;
  let fake: FakeOpenAI;
  let clock = Date.UTC(2026, 11, 3, 9);
  let databaseUrl: string | undefined;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    writeVariant(dirs.studiesDir, 'group-answer-quota', [
      [
        'form_by: arrival',
        'screening: [{ id: expertise, text: "Your experience?", options: [{ value: expert, label: Expert }, { value: novice, label: Novice }] }]\n      form_by: { quota: { source: answer, key: expertise, seats: { expert: 1, novice: 2 } } }',
      ],
      ['speaks: { every_n_messages: 3 }', 'speaks: when_addressed'],
    ]);
    writeVariant(dirs.studiesDir, 'group-idle', [
      ['speaks: { every_n_messages: 3 }', 'speaks: { idle_seconds: 20 }'],
      ['max_replies: 20', 'max_replies: 2'],
    ]);
    writeVariant(dirs.studiesDir, 'group-idle-failing', [['speaks: { every_n_messages: 3 }', 'speaks: { idle_seconds: 20 }']]);
    writeVariant(dirs.studiesDir, 'group-failing', [['speaks: { every_n_messages: 3 }', 'speaks: every_message']]);
    writeVariant(dirs.studiesDir, 'group-budget', [
      ['speaks: { every_n_messages: 3 }', 'speaks: when_addressed'],
      ['time_limit_minutes: 15', 'time_limit_minutes: 15\nchat: { max_message_chars: 4000, max_user_messages: 2 }'],
    ]);
    fake = await startFakeOpenAI({ tokensPerSecond: 0 });
    const target = await createTestStoreTarget(engine, 'group-policies');
    databaseUrl = target.databaseUrl;
    t = await startTestServer({
      engine,
      dataDir: target.dataDir,
      databaseUrl,
      studiesDir: dirs.studiesDir,
      surveysDir: dirs.surveysDir,
      now: () => clock,
      groups: { sweepMs: 60_000 },
      openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    dirs.cleanup();
  });
  afterEach(() => fake.reset());

  async function seedEdits(groupId: string, sessionId: string, n: number): Promise<void> {
    if (!databaseUrl) {
      await t.server.store.transaction(async (tx) => {
        for (let i = 0; i < n; i++) await tx.groups.appendDocUpdate({ groupId, sessionId, fieldId: 'plan', update: EMPTY_UPDATE, createdAt: clock });
      });
      return;
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ next: number }>('SELECT next_doc_seq AS next FROM study_groups WHERE id = $1 FOR UPDATE', [groupId]);
      await client.query(
        `INSERT INTO group_doc_updates (group_id, seq, session_id, field_id, doc_update, created_at)
         SELECT $1, $2 + g, $3, 'plan', $4, $5 FROM generate_series(1, $6::int) g`,
        [groupId, rows[0]!.next, sessionId, EMPTY_UPDATE, clock, n],
      );
      await client.query('UPDATE study_groups SET next_doc_seq = next_doc_seq + $2 WHERE id = $1', [groupId, n]);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
  }

  async function groupOf(studyId: string, n = 3): Promise<{ people: GroupPerson[]; groupId: string }> {
    const people: GroupPerson[] = [];
    for (let i = 0; i < n; i++) {
      clock += 1;
      people.push(await consentedPerson(t, studyId));
    }
    for (const p of people) await groupOk(p.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(people[0]!.socket, 'group:status'))!;
    return { people, groupId: view.groupId };
  }

  it('matches by quota on an answer the session has given: one expert and two novices, the rest wait or are refused', async () => {
    const people: GroupPerson[] = [];
    for (let i = 0; i < 5; i++) {
      clock += 1;
      people.push(await consentedPerson(t, 'group-answer-quota'));
    }
    const joinAs = (p: GroupPerson, expertise: string) => groupOk(p.socket, 'group:lobby:join', { answers: { expertise } });
    const [e1, e2, n1, unanswered, n2] = people as [GroupPerson, GroupPerson, GroupPerson, GroupPerson, GroupPerson];
    expect(await joinAs(e1, 'expert')).toMatchObject({ state: 'waiting' });
    expect(await joinAs(e2, 'expert')).toMatchObject({ state: 'waiting' });
    expect(await joinAs(n1, 'novice')).toMatchObject({ state: 'waiting' });
    // No answer: the screening question comes first, so the lobby refuses the join (tests/integration/groupScreening).
    const refused = await groupCall(unanswered.socket, 'group:lobby:join', {});
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'answers.expertise' } });
    const view = grouped(await joinAs(n2, 'novice'))!;
    const seated = (await t.server.store.groups.listMembers(view.groupId)).flatMap((m) => (m.sessionId ? [m.sessionId] : []));
    expect(seated).toEqual([e1.sessionId, n1.sessionId, n2.sessionId]);
    expect(await groupOk(e2.socket, 'group:status')).toMatchObject({ state: 'waiting', waiting: 1 });
    const joined = (await t.server.store.groups.listEvents('group-answer-quota')).filter((e) => e.type === 'lobby_joined' && e.sessionId === e1.sessionId);
    expect(joined.map((e) => e.payload)).toEqual([{ quota_value: 'expert' }]);
  });

  it('seats first come, first seated when two people join in the same millisecond (the clock stands still)', async () => {
    const experts = [await consentedPerson(t, 'group-quota', { expertise: 'expert' }), await consentedPerson(t, 'group-quota', { expertise: 'expert' })];
    // The larger session id joins first: an order by (joined_at, session_id) would seat the other.
    const [first, second] = experts.sort((x, y) => (x.sessionId > y.sessionId ? -1 : 1)) as [GroupPerson, GroupPerson];
    await groupOk(first.socket, 'group:lobby:join');
    await groupOk(second.socket, 'group:lobby:join');
    const novices = [await consentedPerson(t, 'group-quota', { expertise: 'novice' }), await consentedPerson(t, 'group-quota', { expertise: 'novice' })];
    await groupOk(novices[0]!.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(novices[1]!.socket, 'group:lobby:join'))!;
    const lobby = await t.server.store.groups.listLobbyEntries('group-quota');
    const entryOf = (p: GroupPerson) => lobby.find((e) => e.sessionId === p.sessionId)!;
    expect(entryOf(first).joinedAt).toBe(entryOf(second).joinedAt);
    expect(entryOf(first).arrivalSeq).toBeLessThan(entryOf(second).arrivalSeq);
    const seated = (await t.server.store.groups.listMembers(view.groupId)).flatMap((m) => (m.sessionId ? [m.sessionId] : []));
    expect(seated).toEqual([first.sessionId, novices[0]!.sessionId, novices[1]!.sessionId]);
    expect(await groupOk(second.socket, 'group:status')).toMatchObject({ state: 'waiting' });
  });

  it('lets an idle_seconds agent speak once the room has been silent that long, once per silence, up to max_replies', async () => {
    fake.setResponder(() => reply('Shall I summarise where you are?'));
    const { people, groupId } = await groupOf('group-idle');
    const agentMessages = () => t.server.store.groups.listMessages(groupId).then((ms) => ms.filter((m) => m.senderKind === 'agent'));
    const sweepAndSettle = async () => {
      await t.server.groups.sweep();
      await t.server.groups.agents.idle();
    };
    await sweepAndSettle();
    expect(await agentMessages()).toEqual([]); // silence before anyone spoke is no trigger
    await groupOk(people[0]!.socket, 'group:send', { groupId, clientId: 'm1', text: 'Hello all' });
    clock += 19_999;
    await sweepAndSettle();
    expect(await agentMessages()).toEqual([]);
    clock += 1;
    await sweepAndSettle();
    expect((await agentMessages()).map((m) => m.content)).toEqual(['Shall I summarise where you are?']);
    // Its own reply does not re-arm it: more silence, no second reply.
    clock += 60_000;
    await sweepAndSettle();
    expect(await agentMessages()).toHaveLength(1);
    // A person speaks again: after 20 s of silence the agent speaks again; then max_replies (2) stops it.
    await groupOk(people[1]!.socket, 'group:send', { groupId, clientId: 'm2', text: 'Yes please' });
    clock += 20_000;
    await sweepAndSettle();
    await groupOk(people[2]!.socket, 'group:send', { groupId, clientId: 'm3', text: 'And then?' });
    clock += 20_000;
    await sweepAndSettle();
    expect(await agentMessages()).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });

  it('posts nothing when the agent\'s model fails, records agent_failed, tries once per message, and the room goes on', async () => {
    fake.setResponder(() => httpError(500, { message: 'model down' }));
    const { people, groupId } = await groupOf('group-failing');
    const seen = collect(people[1]!.socket, 'group:message');
    await groupOk(people[0]!.socket, 'group:send', { groupId, clientId: 'f1', text: 'Where do we start?' });
    const failed = await eventually('agent_failed', async () => (await t.server.store.groups.listGroupEvents(groupId)).find((e) => e.type === 'agent_failed'), 10_000);
    expect(failed).toMatchObject({ sessionId: null, payload: { agent: 'Facilitator', kind: 'server' } });
    await t.server.groups.agents.idle();
    expect((await t.server.store.groups.listMessages(groupId)).map((m) => m.senderKind)).toEqual(['participant']);
    // The room goes on: people still post and see each other.
    expect(await groupOk(people[1]!.socket, 'group:send', { groupId, clientId: 'f2', text: 'With the budget.' })).toEqual({ groupSeq: 2 });
    await eventually('the second message relayed', () => seen.find((m) => m.groupSeq === 2));
    await eventually('a second failure, for the second message', async () => (await t.server.store.groups.listGroupEvents(groupId)).filter((e) => e.type === 'agent_failed').length === 2, 10_000);
    await t.server.groups.agents.idle();
    // Sweeps do not retry a failed reply (nothing re-arms it until a person speaks).
    clock += 120_000;
    await t.server.groups.sweep();
    await t.server.groups.agents.idle();
    expect((await t.server.store.groups.listGroupEvents(groupId)).filter((e) => e.type === 'agent_failed')).toHaveLength(2);
    expect(seen.every((m) => m.senderKind === 'participant')).toBe(true);
    // When the model is back the agent speaks again.
    fake.setResponder(() => reply('Back: start with the budget.'));
    await groupOk(people[2]!.socket, 'group:send', { groupId, clientId: 'f3', text: 'Hello?' });
    await eventually('the agent replies', () => seen.find((m) => m.senderKind === 'agent'), 10_000);
  });

  it('does not retry an idle agent whose model failed at every sweep: once per silence, as a reply', async () => {
    fake.setResponder(() => httpError(500, { message: 'model down' }));
    const { people, groupId } = await groupOf('group-idle-failing');
    const failures = async () => (await t.server.store.groups.listGroupEvents(groupId)).filter((e) => e.type === 'agent_failed');
    await groupOk(people[0]!.socket, 'group:send', { groupId, clientId: 'i1', text: 'Anyone?' });
    for (let i = 0; i < 4; i++) {
      clock += 20_000;
      await t.server.groups.sweep();
      await t.server.groups.agents.idle();
    }
    expect(await failures()).toHaveLength(1);
    expect((await t.server.store.groups.listMessages(groupId)).map((m) => m.senderKind)).toEqual(['participant']);
    // A new silence after a person's message is a new try.
    await groupOk(people[1]!.socket, 'group:send', { groupId, clientId: 'i2', text: 'Hello?' });
    clock += 20_000;
    await t.server.groups.sweep();
    await t.server.groups.agents.idle();
    expect(await failures()).toHaveLength(2);
  });

  it('refuses a member over the message budget or the edit budget with the budget error, and not the others', async () => {
    const { people, groupId } = await groupOf('group-budget');
    const [a, b] = people as [GroupPerson, GroupPerson];
    for (const id of ['a1', 'a2']) await groupOk(a.socket, 'group:send', { groupId, clientId: id, text: `from a ${id}` });
    const over = await groupCall(a.socket, 'group:send', { groupId, clientId: 'a3', text: 'one too many' });
    expect(over).toMatchObject({ ok: false, error: { code: 'limit_reached' } });
    expect(!over.ok && over.error.message).toMatch(/at most 2 messages per member/);
    // A resend of a stored message is not a new message (it answers with its seq).
    expect(await groupOk(a.socket, 'group:send', { groupId, clientId: 'a2', text: 'from a a2' })).toEqual({ groupSeq: 2 });
    expect(await groupOk(b.socket, 'group:send', { groupId, clientId: 'b1', text: 'from b' })).toEqual({ groupSeq: 3 });

    // Edits: a has made all but one of the allowed edits, stored through the store as the room stores them; on
    // PostgreSQL in one statement (20 000 appends, three round trips each, take a minute on a shared machine).
    await seedEdits(groupId, a.sessionId, MAX_DOC_UPDATES_PER_MEMBER - 1);
    await editShared(groupId, a, [], 'plan', 0, 'last allowed edit');
    const refused = await groupCall(a.socket, 'group:doc:update', { groupId, field: 'plan', update: EMPTY_UPDATE });
    expect(refused).toMatchObject({ ok: false, error: { code: 'limit_reached' } });
    expect(!refused.ok && refused.error.message).toMatch(new RegExp(`at most ${MAX_DOC_UPDATES_PER_MEMBER} edits per member`));
    expect(await editShared(groupId, b, [], 'plan', 0, 'b still edits')).toBe(MAX_DOC_UPDATES_PER_MEMBER + 1);
    expect(await t.server.store.groups.countMemberDocUpdates(a.sessionId)).toBe(MAX_DOC_UPDATES_PER_MEMBER);
  }, 180_000);
});
