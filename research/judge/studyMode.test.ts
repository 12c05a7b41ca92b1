/**
 * --study mode: sessions, messages and artifacts come from a real study database (the server's Store
 * and migrations in a temp dir); samples go to the `judgements` / `judge_quality` tables and labels to
 * `annotations`. The model is a local fake OpenAI-compatible server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../tests/support/fakeOpenAI';
import { annotateStudy } from '../annotate/annotateTargets';
import { loadAnnotationGuide } from '../annotate/guide';
import { utterancesFromPrompt } from '../annotate/offlineAnnotator';
import { openStore, type Store } from '../../lib/storage';
import { createTestStoreTarget, STORE_ENGINES, type TestStoreTarget } from '../../tests/support/testStores';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import { runCli } from '../../tests/support/judgeCliSupport';
import { judgeStudy } from './judgeStudy';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';

let fake: FakeOpenAI;
let dataDir: string;
let store: Store;

async function seed(s: Store): Promise<void> {
  const now = Date.parse('2026-11-01T10:00:00Z');
  await s.studies.upsertLoaded('pilot-study', 'Pilot', 'hash', 'live', now);
  const message = (sessionId: string, seq: number, role: 'user' | 'assistant', text: string) =>
    s.messages.insert({
      id: `${sessionId}-m${seq}`, sessionId, eventSeq: seq, role, text, clientId: role === 'user' ? `${sessionId}-c${seq}` : null,
      replyTo: null, status: 'complete', tokens: 5, provider: null, providerUrl: null, model: null, requestedModel: null, params: null,
      usage: null, ttftMs: null, durationMs: null, finishReason: null, interrupted: false, attempts: null, error: null, createdAt: now + seq,
    });
  await s.sessions.insert({ id: 'sess-a', studyId: 'pilot-study', taskId: 'travel_planning', conditionId: 'c1', isPilot: false, createdAt: now });
  await s.sessions.insert({ id: 'sess-b', studyId: 'pilot-study', taskId: 'travel_planning', conditionId: 'c1', isPilot: false, createdAt: now + 1 });
  await message('sess-a', 1, 'user', 'Plan Lisbon for 3 days?');
  await message('sess-a', 2, 'assistant', 'Sure. Day 1: Alfama.');
  await message('sess-b', 1, 'user', 'Quick trip to Porto.');
  await s.artifacts.insertVersion('sess-a', { plan: 'First draft.' }, 3, now + 10);
  await s.artifacts.insertVersion('sess-a', { plan: 'Day 1 Alfama, Day 2 Sintra, Day 3 Belem; 780 EUR.' }, 4, now + 20);
  // sess-b submitted nothing: not judged.
}

const judgeReply = (r: RecordedRequest) =>
  reply(`Fits the request. Therefore, the final score is ${({ 0: 3, 1: 5, 2: 4 } as Record<number, number>)[r.body.seed as number] ?? 1}.`);
const annotateReply = (r: RecordedRequest) =>
  reply(JSON.stringify({ annotations: utterancesFromPrompt(String(r.body.messages[1].content)).map((u) => ({ turn: u.turn, speaker: u.speaker, grounding: ['response'], friction: 'none' })) }));

const provider = () => new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', timeoutMs: 5000, maxAttempts: 2, backoffBaseMs: 5 });

describe.each(STORE_ENGINES)('--study mode (%s)', (engine) => {
  let target: TestStoreTarget;
  beforeEach(async () => {
    fake = await startFakeOpenAI({ model: 'judge-db-1' });
    target = await createTestStoreTarget(engine, 'judge-study');
    dataDir = target.dataDir;
    store = await openStore(target);
    await seed(store);
  });
  afterEach(async () => {
    await store.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('judges the latest artifact of each submitted session into judgements and judge_quality', async () => {
    fake.setResponder(judgeReply);
    const p = provider();
    const result = await judgeStudy({
      store, dataDir, studyId: 'pilot-study', tasks: [], rubrics: loadRubrics(),
      settings: { model: 'judge-db', samples: 3, concurrency: 2, temperature: 0.5, maxTokens: 300, baseSeed: 0 },
      provider: p, providerInfo: { name: p.name, url: p.baseURL },
    });
    expect(result.interrupted).toBe(false);
    const repo = store.judgements;
    const rows = (await store.judgements.listForSession('sess-a'));
    expect(rows.map((r) => [r.artifactVersion, r.rubricId, r.sample, r.score])).toEqual([
      [2, 'travel-planning', 0, 3],
      [2, 'travel-planning', 1, 5],
      [2, 'travel-planning', 2, 4],
    ]);
    expect(rows[0]).toMatchObject({ requestedModel: 'judge-db', reportedModel: 'judge-db-1', providerUrl: fake.url, parseOk: true, cached: false });
    expect(String(fake.requests[0]!.body.messages[1].content)).toContain('Day 2 Sintra');
    expect((await store.judgements.getQuality('sess-a'))).toMatchObject({ quality: 4, samples: 3, parsed: 3, artifactVersion: 2 });
    expect((await store.judgements.listForSession('sess-b'))).toEqual([]);
    expect((await store.judgements.listForStudy('pilot-study'))).toHaveLength(3);
  });

  it('the CLI judges and annotates a study in the database; reruns make no new calls', async () => {
    await store.close();
    fake.setResponder((r) => (String(r.body.messages[0].content).includes('You annotate dialogue') ? annotateReply(r) : judgeReply(r)));
    const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}) };
    const args = ['--study', 'pilot-study', '--data-dir', dataDir, '--studies-dir', join(dataDir, 'none'), '--surveys-dir', join(dataDir, 'none')];
    const judged = await runCli('cli/judge.ts', [...args, '--samples', '3'], env);
    expect(judged.stderr).toContain('done: 3/3 samples');
    expect(judged.code).toBe(0);
    const annotated = await runCli('cli/annotate.ts', ['--study', 'pilot-study', '--data-dir', dataDir], env);
    expect(annotated.stderr).toContain('done: 3 utterances');
    expect(annotated.code).toBe(0);
    const calls = fake.requests.length;
    expect(calls).toBe(3 + 2);
    expect((await runCli('cli/judge.ts', [...args, '--samples', '3'], env)).stderr).toContain('0 new calls, 3 cache hits');
    expect((await runCli('cli/annotate.ts', ['--study', 'pilot-study', '--data-dir', dataDir], env)).code).toBe(0);
    expect(fake.requests.length).toBe(calls);

    store = await openStore(target);
    expect((await store.judgements.getQuality('sess-a'))?.quality).toBe(4);
    const labels = (await store.annotations.listForStudy('pilot-study'));
    expect(labels.map((a) => [a.sessionId, a.turn, a.speaker, a.messageId, a.friction])).toEqual([
      ['sess-a', 0, 'user', 'sess-a-m1', 'none'],
      ['sess-a', 1, 'agent', 'sess-a-m2', 'none'],
      ['sess-b', 0, 'user', 'sess-b-m1', 'none'],
    ]);
  });

  it('annotateStudy stores labels with provenance', async () => {
    fake.setResponder(annotateReply);
    const p = provider();
    const guide = loadAnnotationGuide();
    await annotateStudy(store, dataDir, 'pilot-study', {
      guide, settings: { model: 'annot-db', concurrency: 2, chunkSize: 30, contextSize: 2, maxTokens: 1000 },
      provider: p, providerInfo: { name: p.name, url: p.baseURL },
    });
    const rows = (await store.annotations.listForSession('sess-a'));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ speaker: 'agent', grounding: ['response'], guideHash: guide.hash, requestedModel: 'annot-db', reportedModel: 'judge-db-1', method: 'batch' });
  });
});
