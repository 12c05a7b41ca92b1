/**
 * `judge --study` with a group: the group's shared document is judged once (k samples into group_judgements, the
 * median into group_judge_quality), its members are not judged one by one, a session outside any group is judged as
 * before, the prompt holds the document's final text and the room redacted, and the cached replies are linked to
 * every member (a withdrawal forgets them). Real stores on both engines; the model is a local fake OpenAI server.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { reply, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../tests/support/fakeOpenAI';
import { openStore, type Store } from '../../lib/storage';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { seedSession, seedStudyRow } from '../../tests/support/seedStudy';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';
import { judgeStudy } from './judgeStudy';

const T0 = Date.UTC(2026, 11, 2, 9);
const TASK = 'travel_planning';
const CANARY_EMAIL = 'alice.canary@example.org';
const CANARY_PID = 'PIDCANARY77';

let fake: FakeOpenAI;
let store: Store;
let dataDir: string;

/** Two members typing into one Yjs document; returns the updates in the order the server stored them. */
function documentUpdates(): Array<{ by: 0 | 1; update: string }> {
  const a = new Y.Doc();
  const b = new Y.Doc();
  const out: Array<{ by: 0 | 1; update: string }> = [];
  a.on('update', (u: Uint8Array, origin: unknown) => origin !== 'sync' && out.push({ by: 0, update: Buffer.from(u).toString('base64') }));
  b.on('update', (u: Uint8Array, origin: unknown) => origin !== 'sync' && out.push({ by: 1, update: Buffer.from(u).toString('base64') }));
  a.getText('plan').insert(0, `Day 1 lake walk. Write to ${CANARY_EMAIL}.`);
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a), 'sync');
  b.getText('plan').insert(b.getText('plan').length, ' Day 2 old town, 640 EUR.');
  return out;
}

async function seed(s: Store): Promise<{ groupId: string; members: string[]; solo: string }> {
  await seedStudyRow(s, 'grp');
  const members = [
    await seedSession(s, dataDir, 'grp', { taskId: TASK, conditionId: 'team', platformUserId: CANARY_PID, messages: [], artifact: { plan: 'member copy 1' } }),
    await seedSession(s, dataDir, 'grp', { taskId: TASK, conditionId: 'team', messages: [], artifact: { plan: 'member copy 2' } }),
  ];
  const solo = await seedSession(s, dataDir, 'grp', { taskId: TASK, conditionId: 'solo', messages: [{ role: 'user', text: 'Plan Porto.' }], artifact: { plan: 'Porto, one day.' } });
  const groupId = randomUUID();
  for (const [i, id] of members.entries())
    await s.groups.joinLobby({ sessionId: id, studyId: 'grp', conditionId: 'team', taskId: TASK, quotaValue: null, joinedAt: T0 + i, deadlineAt: T0 + 60_000 });
  await s.groups.createGroup({ id: groupId, studyId: 'grp', conditionId: 'team', taskId: TASK, sizeAtStart: 2, agents: ['Facilitator'], formedAt: T0 + 10 });
  for (const [i, id] of members.entries())
    await s.groups.addMember({ groupId, seat: i + 1, kind: 'participant', sessionId: id, displayName: `Member ${i + 1}`, status: 'present', joinedAt: T0 + 10 });
  await s.groups.settleLobby(members, 'grouped', T0 + 10, groupId);
  const say = (sessionId: string | null, kind: 'participant' | 'agent' | 'system', name: string, content: string) =>
    s.groups.appendMessage({ id: randomUUID(), groupId, senderKind: kind, sessionId, senderName: name, clientId: sessionId ? randomUUID() : null, content, tokens: 3, createdAt: T0 + 20 });
  await say(members[0]!, 'participant', 'Member 1', `I am ${CANARY_PID}, shall we see the lake?`);
  await say(null, 'agent', 'Facilitator', 'The lake fits the budget.');
  await say(null, 'system', 'Tandem', 'Member 2 joined.');
  for (const u of documentUpdates()) await s.groups.appendDocUpdate({ groupId, sessionId: members[u.by]!, fieldId: 'plan', update: u.update, createdAt: T0 + 30 });
  return { groupId, members, solo };
}

const scoreBySeed = (r: RecordedRequest) => reply(`Sound plan. Therefore, the final score is ${({ 0: 2, 1: 5, 2: 4 } as Record<number, number>)[r.body.seed as number] ?? 1}.`);
const provider = () => new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', timeoutMs: 5000, maxAttempts: 2, backoffBaseMs: 5 });
const judge = () => {
  const p = provider();
  return judgeStudy({
    store, dataDir, studyId: 'grp', tasks: [], rubrics: loadRubrics(),
    settings: { model: 'judge-g', samples: 3, concurrency: 2, temperature: 0.5, maxTokens: 300, baseSeed: 0 },
    provider: p, providerInfo: { name: p.name, url: p.baseURL },
  });
};

describe.each(STORE_ENGINES)('judging a group once (%s)', (engine) => {
  beforeEach(async () => {
    fake = await startFakeOpenAI({ model: 'judge-g-1' });
    fake.setResponder(scoreBySeed);
    const target = await createTestStoreTarget(engine, 'judge-group');
    dataDir = target.dataDir;
    store = await openStore(target);
  });
  afterEach(async () => {
    await store.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("judges the group's shared document once, stores its samples and Q, and judges the session outside it as before", async () => {
    const { groupId, members, solo } = await seed(store);
    const result = await judge();
    expect(result).toMatchObject({ interrupted: false, total: 6, groupsJudged: 1, membersInGroups: 2 });
    expect(fake.requests).toHaveLength(6);
    const prompts = fake.requests.map((r) => String(r.body.messages[1].content));
    const groupPrompts = prompts.filter((p) => p.includes('Day 2 old town'));
    expect(groupPrompts).toHaveLength(3);
    // The document's final text (both members' edits) and, as for a session, the room's first message from a person,
    // under the sender's display name; identities redacted everywhere.
    expect(groupPrompts[0]).toContain('Day 1 lake walk.');
    expect(groupPrompts[0]).toContain('Member 1: I am ');
    expect(groupPrompts[0]).toContain('shall we see the lake?');
    for (const p of prompts) {
      expect(p).not.toContain(CANARY_EMAIL);
      expect(p).not.toContain(CANARY_PID);
      expect(p).not.toContain('member copy');
    }
    const samples = await store.groupJudgements.listForGroup(groupId);
    expect(samples.map((j) => [j.docVersion, j.rubricId, j.sample, j.score])).toEqual([
      [2, 'travel-planning', 0, 2],
      [2, 'travel-planning', 1, 5],
      [2, 'travel-planning', 2, 4],
    ]);
    expect(await store.groupJudgements.getQuality(groupId)).toMatchObject({ docVersion: 2, quality: 4, samples: 3, parsed: 3 });
    for (const id of members) expect(await store.judgements.listForSession(id)).toEqual([]);
    expect((await store.judgements.getQuality(solo))?.quality).toBe(4);
  });

  it("a rerun is all cache hits, and withdrawing one member forgets the group's cached replies", async () => {
    const { members } = await seed(store);
    await judge();
    const again = await judge();
    expect(again.stats).toMatchObject({ calls: 0, cacheHits: 6 });
    const cache = await store.openReplyCache();
    try {
      expect(await cache.forgetSessions([members[1]!])).toBe(3);
    } finally {
      await cache.close();
    }
    expect((await judge()).stats).toMatchObject({ calls: 3, cacheHits: 3 });
  });
});
