import crypto from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type GroupJudgementRecord, type Store } from '../../lib/storage';
import { loadOrCreatePseudonymKey, sessionPseudonym } from '../../lib/pseudonym';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { seedSession, seedStudyRow } from '../../tests/support/seedStudy';
import { exportStudy } from './exportStudy';

const T0 = Date.UTC(2026, 11, 2, 9);
const csv = (file: string) => parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
/** A stored sample of a group's document; its raw reply must never reach the dataset. */
const groupSample = (groupId: string, sample: number, score: number | null, cached = false): GroupJudgementRecord => ({
  groupId, docVersion: 7, rubricId: 'plan-quality', rubricVersion: '2', rubricHash: 'rh-plan', templateHash: 'th', parserVersion: 'p1',
  sample, requestedModel: 'judge-m', reportedModel: 'judge-m-2026', systemFingerprint: null, provider: 'offline', providerUrl: null,
  parameters: { temperature: 0.7, maxTokens: 300 }, seed: sample, score, parseOk: score !== null, failureReason: score === null ? 'no score' : null,
  rawReply: `RAWREPLY-${groupId}-${sample}`, reaskReply: null, reasked: false, usage: null, latencyMs: 3, cached, cacheKey: `key-${sample}`,
  transportError: null, createdAt: T0 + 60_000,
});
const groupQ = (groupId: string, quality: number | null) =>
  ({ groupId, docVersion: 7, rubricId: 'plan-quality', rubricHash: 'rh-plan', requestedModel: 'judge-m', quality, samples: 2, parsed: 1, updatedAt: T0 + 60_000 });
const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(STORE_ENGINES)('group files of the dataset (%s)', (engine) => {
  let store: Store;
  let dataDir: string;
  const people: string[] = [];
  let groupId: string;
  let released: string;
  // A kept group nobody judged, and a group of a pilot session only (left out without --include-pilot), judged.
  const quietGroup = crypto.randomUUID();
  const pilotGroup = crypto.randomUUID();
  beforeAll(async () => {
    const target = await createTestStoreTarget(engine, 'group-export');
    dataDir = target.dataDir;
    store = await openStore(target);
    await seedStudyRow(store, 'grp');
    for (let i = 0; i < 3; i++) people.push(await seedSession(store, dataDir, 'grp', { platformUserId: `PID${i}SECRET`, conditionId: 'facilitated', messages: [] }));
    released = await seedSession(store, dataDir, 'grp', { conditionId: 'facilitated', messages: [] });
    groupId = crypto.randomUUID();
    const entry = (sessionId: string, joinedAt: number) => ({ sessionId, studyId: 'grp', conditionId: 'facilitated', taskId: 'travel', quotaValue: null, joinedAt, deadlineAt: joinedAt + 30_000 });
    for (const [i, id] of people.entries()) await store.groups.joinLobby(entry(id, T0 + i * 1000));
    await store.groups.joinLobby(entry(released, T0));
    await store.groups.createGroup({ id: groupId, studyId: 'grp', conditionId: 'facilitated', taskId: 'travel', sizeAtStart: 3, agents: ['Facilitator'], formedAt: T0 + 2000 });
    for (const [i, id] of people.entries()) {
      await store.groups.addMember({ groupId, seat: i + 1, kind: 'participant', sessionId: id, displayName: `Member ${i + 1}`, status: 'present', joinedAt: T0 + 2000 });
      await store.groups.appendEvent({ studyId: 'grp', groupId, sessionId: id, type: 'grouped', serverTs: T0 + 2000, payload: { wait_ms: 2000 - i * 1000, seat: i + 1 } });
    }
    await store.groups.addMember({ groupId, seat: 4, kind: 'agent', sessionId: null, displayName: 'Facilitator', status: 'present', joinedAt: T0 + 2000 });
    await store.groups.settleLobby(people, 'grouped', T0 + 2000, groupId);
    await store.groups.settleLobby([released], 'released', T0 + 30_000, null);
    await store.groups.appendEvent({ studyId: 'grp', groupId: null, sessionId: released, type: 'released', serverTs: T0 + 30_000, payload: { wait_ms: 30_000 } });
    const say = (sessionId: string | null, kind: 'participant' | 'agent' | 'system', name: string, content: string) =>
      store.groups.appendMessage({ id: crypto.randomUUID(), groupId, senderKind: kind, sessionId, senderName: name, clientId: sessionId ? crypto.randomUUID() : null, content, tokens: 3, createdAt: T0 + 5000 });
    await say(people[0]!, 'participant', 'Member 1', 'I am PID0SECRET, lake?');
    await say(null, 'agent', 'Facilitator', 'The lake sounds good.');
    await say(people[1]!, 'participant', 'Member 2', 'Agreed.');
    await store.groups.setMemberStatus(groupId, 3, 'dropped', T0 + 9000);
    await store.groups.appendEvent({ studyId: 'grp', groupId, sessionId: people[2]!, type: 'dropped', serverTs: T0 + 9000, payload: { grace_ms: 30_000, policy: 'continue' } });

    await store.groupJudgements.upsert(groupSample(groupId, 0, 4, true));
    await store.groupJudgements.upsert(groupSample(groupId, 1, null));
    await store.groupJudgements.setQuality(groupQ(groupId, 4));
    const quiet = await seedSession(store, dataDir, 'grp', { conditionId: 'facilitated', messages: [] });
    const pilot = await seedSession(store, dataDir, 'grp', { conditionId: 'facilitated', messages: [], isPilot: true });
    for (const [id, sessionId, formedAt] of [[quietGroup, quiet, T0 + 3000], [pilotGroup, pilot, T0 + 4000]] as const) {
      await store.groups.createGroup({ id, studyId: 'grp', conditionId: 'facilitated', taskId: 'travel', sizeAtStart: 1, agents: [], formedAt });
      await store.groups.addMember({ groupId: id, seat: 1, kind: 'participant', sessionId, displayName: 'Member 1', status: 'present', joinedAt: formedAt });
    }
    await store.groupJudgements.upsert(groupSample(pilotGroup, 0, 2));
    await store.groupJudgements.setQuality(groupQ(pilotGroup, 2));
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes groups.csv, group_events.jsonl, the room in messages.jsonl and the sessions\' group columns', async () => {
    const outDir = join(dataDir, 'out');
    await exportStudy({ store, dataDir, studyId: 'grp', outDir, includePilot: false, includeIdentities: false });
    const key = loadOrCreatePseudonymKey(dataDir);
    const pseudo = (id: string) => sessionPseudonym(key, id);

    const groups = csv(join(outDir, 'groups.csv'));
    expect(groups).toEqual([
      expect.objectContaining({ group_id: groupId, condition: 'facilitated', size_at_start: '3', size_at_end: '2', status: 'active', agents: 'Facilitator', ended_at: '', quality: '4' }),
      expect.objectContaining({ group_id: quietGroup, size_at_start: '1', quality: '' }),
    ]);

    const room = jsonl(join(outDir, 'messages.jsonl')).filter((m) => m.group_id === groupId);
    expect(room.map((m) => [m.group_seq, m.sender_kind, m.sender_name, m.session_id])).toEqual([
      [1, 'participant', 'Member 1', pseudo(people[0]!)],
      [2, 'agent', 'Facilitator', null],
      [3, 'participant', 'Member 2', pseudo(people[1]!)],
    ]);
    expect(room[0]!.text).not.toContain('PID0SECRET');

    const events = jsonl(join(outDir, 'group_events.jsonl'));
    expect(events.map((e) => [e.type, e.session_id, e.wait_ms])).toEqual([
      ['grouped', pseudo(people[0]!), 2000],
      ['grouped', pseudo(people[1]!), 1000],
      ['grouped', pseudo(people[2]!), 0],
      ['released', pseudo(released), 30_000],
      ['dropped', pseudo(people[2]!), null],
    ]);
    const all = readFileSync(join(outDir, 'group_events.jsonl'), 'utf8') + readFileSync(join(outDir, 'messages.jsonl'), 'utf8');
    for (const id of [...people, released]) expect(all).not.toContain(id);

    const sessions = parse(readFileSync(join(outDir, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const row = (id: string) => sessions.find((s) => s.session_id === pseudo(id))!;
    expect([row(people[0]!).group_id, row(people[0]!).lobby_outcome, row(people[0]!).lobby_wait_ms]).toEqual([groupId, 'grouped', '2000']);
    expect([row(released).group_id, row(released).lobby_outcome, row(released).lobby_wait_ms]).toEqual(['', 'released', '30000']);

    const codebook = readFileSync(join(outDir, 'codebook.md'), 'utf8');
    expect(codebook).toContain('groups.csv');
    expect(codebook).toContain('group_seq');
    expect(codebook).toContain('## `group_judgements.csv`');
    expect(codebook).toContain('| `doc_version` |');
    const datapackage = JSON.parse(readFileSync(join(outDir, 'datapackage.json'), 'utf8')) as { resources: { path: string; schema: { fields: { name: string }[] } }[] };
    expect(datapackage.resources.map((r) => r.path)).toEqual(expect.arrayContaining(['groups.csv', 'group_events.jsonl', 'group_judgements.csv']));
    expect(datapackage.resources.find((r) => r.path === 'sessions.csv')!.schema.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['group_id', 'lobby_outcome']));
    const fields = (path: string) => datapackage.resources.find((r) => r.path === path)!.schema.fields.map((f) => f.name);
    expect(fields('groups.csv').at(-1)).toBe('quality');
    expect(fields('group_judgements.csv')).toEqual(['group_id', 'rubric_id', 'rubric_hash', 'model', 'sample', 'score', 'parse_ok', 'cached', 'doc_version', 'images']);
  });

  it('writes the kept groups\' judge samples to group_judgements.csv and their Q to groups.csv; a pilot-only group\'s stay out', async () => {
    const outDir = join(dataDir, 'out-judged');
    const { manifest } = await exportStudy({ store, dataDir, studyId: 'grp', outDir, includePilot: false, includeIdentities: false });
    const file = join(outDir, 'group_judgements.csv');
    expect(csv(file)).toEqual([
      { group_id: groupId, rubric_id: 'plan-quality', rubric_hash: 'rh-plan', model: 'judge-m-2026', sample: '0', score: '4', parse_ok: 'true', cached: 'true', doc_version: '7', images: '' },
      { group_id: groupId, rubric_id: 'plan-quality', rubric_hash: 'rh-plan', model: 'judge-m-2026', sample: '1', score: '', parse_ok: 'false', cached: 'false', doc_version: '7', images: '' },
    ]);
    expect(readFileSync(file, 'utf8')).not.toContain('RAWREPLY');
    expect(manifest.counts.group_judgements).toBe(2);
    expect(manifest.files.find((f) => f.path === 'group_judgements.csv')?.rows).toBe(2);

    const withPilot = join(dataDir, 'out-pilot');
    await exportStudy({ store, dataDir, studyId: 'grp', outDir: withPilot, includePilot: true, includeIdentities: false });
    expect(csv(join(withPilot, 'group_judgements.csv')).map((r) => [r.group_id, r.sample, r.score])).toEqual([
      [groupId, '0', '4'],
      [groupId, '1', ''],
      [pilotGroup, '0', '2'],
    ]);
    expect(csv(join(withPilot, 'groups.csv')).map((g) => [g.group_id, g.quality])).toEqual([[groupId, '4'], [quietGroup, ''], [pilotGroup, '2']]);
  });
});
