/** group_judgements / group_judge_quality on both engines: a group's document judged once, keyed by group. */
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { STORE_ENGINES, openTestStore } from '../../tests/support/testStores';
import type { Store } from '.';
import type { GroupJudgementRecord } from './contract/store';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const sample = (groupId: string, n: number, score: number | null): GroupJudgementRecord => ({
  groupId, docVersion: 4, rubricId: 'r', rubricVersion: '1', rubricHash: 'rh', templateHash: 'th', parserVersion: 'p1',
  sample: n, requestedModel: 'm', reportedModel: 'm-1', systemFingerprint: null, provider: 'offline', providerUrl: null,
  parameters: { temperature: 0.7, maxTokens: 300 }, seed: 42 + n, score, parseOk: score !== null,
  failureReason: score === null ? 'no score' : null, rawReply: `Score: ${score}`, reaskReply: null, reasked: false,
  usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 }, latencyMs: 5, cached: false, cacheKey: `k${n}`,
  transportError: null, createdAt: 100 + n,
});

describe.each(STORE_ENGINES)('group judgements (%s)', (engine) => {
  async function store(): Promise<Store> {
    const s = await openTestStore(engine, 'groupjudge');
    stores.push(s);
    for (const study of ['study', 'other']) {
      await s.studies.upsertLoaded(study, 'A study', 'hash', 'live', 1);
      await s.groups.createGroup({ id: `${study}-g`, studyId: study, conditionId: 'c', taskId: 't', sizeAtStart: 2, agents: [], formedAt: study === 'study' ? 2 : 1 });
    }
    await s.groups.createGroup({ id: 'study-a', studyId: 'study', conditionId: 'c', taskId: 't', sizeAtStart: 2, agents: [], formedAt: 1 });
    return s;
  }

  it('stores samples by group, replaces a sample of the same key, and lists a study by group formation', async () => {
    const s = await store();
    await s.groupJudgements.upsert(sample('study-g', 0, 2));
    await s.groupJudgements.upsert(sample('study-g', 0, 3));
    await s.groupJudgements.upsert(sample('study-g', 1, null));
    await s.groupJudgements.upsert(sample('study-a', 0, 5));
    await s.groupJudgements.upsert(sample('other-g', 0, 1));
    expect(await s.groupJudgements.listForGroup('study-g')).toEqual([sample('study-g', 0, 3), sample('study-g', 1, null)]);
    expect((await s.groupJudgements.listForStudy('study')).map((j) => [j.groupId, j.sample, j.score])).toEqual([
      ['study-a', 0, 5], ['study-g', 0, 3], ['study-g', 1, null],
    ]);
  });

  it('keeps one quality per group, the last one set', async () => {
    const s = await store();
    const q = { groupId: 'study-g', docVersion: 4, rubricId: 'r', rubricHash: 'rh', requestedModel: 'm', quality: 3, samples: 2, parsed: 1, updatedAt: 9 };
    await s.groupJudgements.setQuality(q);
    await s.groupJudgements.setQuality({ ...q, docVersion: 5, quality: 4.5, updatedAt: 10 });
    expect(await s.groupJudgements.getQuality('study-g')).toEqual({ ...q, docVersion: 5, quality: 4.5, updatedAt: 10 });
    expect(await s.groupJudgements.getQuality('study-a')).toBeUndefined();
  });

  it('deletes the group judgement when a withdrawn member left edits in the document, keeps it when they left nothing', async () => {
    const s = await store();
    const ids = ['writer', 'silent', 'stays'];
    for (const id of ids) await s.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });
    for (const [i, id] of ids.entries())
      await s.groups.addMember({ groupId: 'study-g', seat: i + 1, kind: 'participant', sessionId: id, displayName: `M${i + 1}`, status: 'present', joinedAt: 1 });
    const doc = new Y.Doc();
    let update = '';
    doc.on('update', (u: Uint8Array) => (update = Buffer.from(u).toString('base64')));
    doc.getText('plan').insert(0, 'the writer\'s words');
    await s.groups.appendDocUpdate({ groupId: 'study-g', sessionId: 'writer', fieldId: 'plan', update, createdAt: 2 });
    const q = { groupId: 'study-g', docVersion: 1, rubricId: 'r', rubricHash: 'rh', requestedModel: 'm', quality: 3, samples: 1, parsed: 1, updatedAt: 9 };
    await s.groupJudgements.upsert(sample('study-g', 0, 3));
    await s.groupJudgements.setQuality(q);
    await s.transaction((tx) => tx.withdrawals.deleteSessions(['silent'], 10));
    expect(await s.groupJudgements.getQuality('study-g')).toEqual(q);
    await s.transaction((tx) => tx.withdrawals.deleteSessions(['writer'], 11));
    expect(await s.groupJudgements.listForGroup('study-g')).toEqual([]);
    expect(await s.groupJudgements.getQuality('study-g')).toBeUndefined();
  });
});
