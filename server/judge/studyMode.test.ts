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
import { AnnotationsRepository } from '../db/repositories/annotations';
import { JudgementsRepository } from '../db/repositories/judgements';
import { openStore, type Store } from '../db/store';
import { OpenAIProvider } from '../llm/openaiProvider';
import { runCli } from './cliTestSupport';
import { judgeStudy } from './judgeStudy';
import { loadRubrics } from './rubricFiles';

let fake: FakeOpenAI;
let dataDir: string;
let store: Store;

function seed(s: Store): void {
  const now = Date.parse('2026-11-01T10:00:00Z');
  s.studies.upsertLoaded('pilot-study', 'Pilot', 'hash', 'live', now);
  const message = (sessionId: string, seq: number, role: 'user' | 'assistant', text: string) =>
    s.messages.insert({
      id: `${sessionId}-m${seq}`, sessionId, eventSeq: seq, role, text, clientId: role === 'user' ? `${sessionId}-c${seq}` : null,
      replyTo: null, status: 'complete', tokens: 5, provider: null, providerUrl: null, model: null, requestedModel: null, params: null,
      usage: null, ttftMs: null, durationMs: null, finishReason: null, interrupted: false, attempts: null, error: null, createdAt: now + seq,
    });
  s.sessions.insert({ id: 'sess-a', studyId: 'pilot-study', taskId: 'travel_planning', conditionId: 'c1', isPilot: false, createdAt: now });
  s.sessions.insert({ id: 'sess-b', studyId: 'pilot-study', taskId: 'travel_planning', conditionId: 'c1', isPilot: false, createdAt: now + 1 });
  message('sess-a', 1, 'user', 'Plan Lisbon for 3 days?');
  message('sess-a', 2, 'assistant', 'Sure. Day 1: Alfama.');
  message('sess-b', 1, 'user', 'Quick trip to Porto.');
  s.artifacts.insertVersion('sess-a', { plan: 'First draft.' }, 3, now + 10);
  s.artifacts.insertVersion('sess-a', { plan: 'Day 1 Alfama, Day 2 Sintra, Day 3 Belem; 780 EUR.' }, 4, now + 20);
  // sess-b submitted nothing: not judged.
}

const judgeReply = (r: RecordedRequest) =>
  reply(`Fits the request. Therefore, the final score is ${({ 0: 3, 1: 5, 2: 4 } as Record<number, number>)[r.body.seed as number] ?? 1}.`);
const annotateReply = (r: RecordedRequest) =>
  reply(JSON.stringify({ annotations: utterancesFromPrompt(String(r.body.messages[1].content)).map((u) => ({ turn: u.turn, speaker: u.speaker, grounding: ['response'], friction: 'none' })) }));

beforeEach(async () => {
  fake = await startFakeOpenAI({ model: 'judge-db-1' });
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-judge-study-'));
  store = openStore(dataDir);
  seed(store);
});
afterEach(async () => {
  store.close();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const provider = () => new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', timeoutMs: 5000, maxAttempts: 2, backoffBaseMs: 5 });

describe('--study mode', () => {
  it('judges the latest artifact of each submitted session into judgements and judge_quality', async () => {
    fake.setResponder(judgeReply);
    const p = provider();
    const result = await judgeStudy({
      store, dataDir, studyId: 'pilot-study', tasks: [], rubrics: loadRubrics(),
      settings: { model: 'judge-db', samples: 3, concurrency: 2, temperature: 0.5, maxTokens: 300, baseSeed: 0 },
      provider: p, providerInfo: { name: p.name, url: p.baseURL },
    });
    expect(result.interrupted).toBe(false);
    const repo = new JudgementsRepository(store.db);
    const rows = repo.listForSession('sess-a');
    expect(rows.map((r) => [r.artifactVersion, r.rubricId, r.sample, r.score])).toEqual([
      [2, 'travel-planning', 0, 3],
      [2, 'travel-planning', 1, 5],
      [2, 'travel-planning', 2, 4],
    ]);
    expect(rows[0]).toMatchObject({ requestedModel: 'judge-db', reportedModel: 'judge-db-1', providerUrl: fake.url, parseOk: true, cached: false });
    expect(String(fake.requests[0]!.body.messages[1].content)).toContain('Day 2 Sintra');
    expect(repo.getQuality('sess-a')).toMatchObject({ quality: 4, samples: 3, parsed: 3, artifactVersion: 2 });
    expect(repo.listForSession('sess-b')).toEqual([]);
    expect(repo.listForStudy('pilot-study')).toHaveLength(3);
  });

  it('the CLI judges and annotates a study in the database; reruns make no new calls', async () => {
    store.close();
    fake.setResponder((r) => (String(r.body.messages[0].content).includes('You annotate dialogue') ? annotateReply(r) : judgeReply(r)));
    const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k' };
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

    store = openStore(dataDir);
    expect(new JudgementsRepository(store.db).getQuality('sess-a')?.quality).toBe(4);
    const labels = new AnnotationsRepository(store.db).listForStudy('pilot-study');
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
    const rows = new AnnotationsRepository(store.db).listForSession('sess-a');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ speaker: 'agent', grounding: ['response'], guideHash: guide.hash, requestedModel: 'annot-db', reportedModel: 'judge-db-1', method: 'batch' });
  });
});
